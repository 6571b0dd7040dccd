// The fenced code blocks of a Markdown text, for tests that check what the docs show.

/** One fenced block: the words after its language (e.g. "fragment"), its text, and the line it opens on. */
export interface CodeBlock {
  info: string;
  code: string;
  line: number;
}

/** The blocks fenced as ```<language>, each optionally followed by more words. */
export function codeBlocks(markdown: string, language: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const opening = /^```(\S*)\s*(.*)$/.exec(lines[i] ?? "");
    if (!opening) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) break;
    if (opening[1] === language) blocks.push({ info: opening[2] ?? "", code: `${lines.slice(i + 1, end).join("\n")}\n`, line: i + 1 });
    i = end;
  }
  return blocks;
}
