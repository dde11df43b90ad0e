// An OpenCode tool file in TypeScript whose argument schemas are zod's.
import { tool } from "@opencode-ai/plugin"
import { z } from "zod"

type Pair = { a: number; b: number; round?: boolean }

export const add = tool({
  description: "Add two numbers.",
  args: {
    a: z.number().describe("the first number"),
    b: z.number().describe("the second number"),
    round: z.boolean().optional().describe("round the sum"),
  },
  async execute(args: Pair): Promise<string> {
    const sum: number = args.a + args.b
    return String(args.round ? Math.round(sum) : sum)
  },
})

export const multiply = tool({
  description: "Multiply two numbers.",
  args: {
    a: tool.schema.number().describe("the first number"),
    b: tool.schema.number().describe("the second number"),
  },
  async execute(args: Pair): Promise<string> {
    return String(args.a * args.b)
  },
})
