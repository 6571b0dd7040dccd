import { expect, test } from "bun:test";
import { codeBlocks } from "./markdown-code-blocks.ts";

test("codeBlocks finds the blocks of one language, with their info words and opening line, skipping others", () => {
  const markdown = ["# Title", "```bash", "ls", "```", "```ts", "const a = 1;", "```", "text", "```ts fragment", "type F = () => void;", "```"].join("\n");
  expect(codeBlocks(markdown, "ts")).toEqual([
    { info: "", code: "const a = 1;\n", line: 5 },
    { info: "fragment", code: "type F = () => void;\n", line: 9 },
  ]);
});
