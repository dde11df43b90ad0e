// Drives a codeloop server with OpenCode's SDK: creates a session, sends
// a prompt, follows the streamed events, answers the permission request
// the prompt causes, and reads the messages. Prints a JSON summary.
const { createOpencodeClient } = await import(process.env.SDK_PATH)

const client = createOpencodeClient({
  baseUrl: process.env.SERVER_URL,
  headers: { Authorization: `Bearer ${process.env.SERVER_TOKEN}` },
})
const must = (res, what) => {
  if (res.error || !res.response.ok) throw new Error(`${what}: ${res.response?.status} ${JSON.stringify(res.error)}`)
  return res.data
}

const session = must(await client.session.create({ body: { title: "from the SDK" } }), "session.create")
const events = await client.event.subscribe()
// The stream connects when it is first read: wait for server.connected,
// so nothing the prompt causes is missed.
const stream = events.stream[Symbol.asyncIterator]()
const first = await stream.next()
if (first.value?.type !== "server.connected") throw new Error(`first event ${JSON.stringify(first.value)}`)
must(await client.session.promptAsync({ path: { id: session.id }, body: { parts: [{ type: "text", text: "write out.txt" }] } }), "promptAsync")

const types = [first.value.type]
let busy = false
let asked = null
let streamed = ""
for (let r = await stream.next(); !r.done; r = await stream.next()) {
  const e = r.value
  types.push(e.type)
  const p = e.properties ?? {}
  if (e.type === "message.part.delta" && p.sessionID === session.id) streamed += p.delta
  if (e.type === "permission.asked" && p.sessionID === session.id) {
    asked = p
    must(await client.postSessionIdPermissionsPermissionId({ path: { id: session.id, permissionID: p.id }, body: { response: "once" } }), "permission reply")
  }
  if (e.type === "session.status" && p.sessionID === session.id) {
    if (p.status.type === "busy") busy = true
    if (p.status.type === "idle" && busy) break
  }
}

const messages = must(await client.session.messages({ path: { id: session.id } }), "session.messages")
const got = must(await client.session.get({ path: { id: session.id } }), "session.get")
console.log(JSON.stringify({
  session: got.id === session.id ? got.title : null,
  types,
  streamed,
  permission: asked && { permission: asked.permission, patterns: asked.patterns },
  messages: messages.map((m) => ({ role: m.info.role, parts: m.parts.map((x) => x.type === "tool" ? `tool ${x.tool} ${x.state.status}` : `${x.type} ${x.text ?? ""}`) })),
}))
process.exit(0)
