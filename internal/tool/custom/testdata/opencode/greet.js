// An OpenCode tool file in plain JavaScript, as OpenCode's documentation writes them.
import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Greet someone by name.",
  args: {
    name: tool.schema.string().describe("who to greet"),
    loud: tool.schema.boolean().optional().describe("shout"),
  },
  async execute(args, context) {
    console.log("this goes to standard error")
    const end = args.loud ? "!" : "."
    return `hello, ${args.name}${end} session=${context.sessionID} dir=${context.directory} worktree=${context.worktree}`
  },
})

export const count = tool({
  description: "Count the items.",
  args: {
    items: tool.schema.array(tool.schema.string()).describe("the items"),
  },
  async execute(args) {
    return String(args.items.length)
  },
})

export const version = "1.0"
