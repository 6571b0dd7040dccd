// `--log-format=text`: one line per entry, as klog's text output is, so `grep` and `tail` find
// whole entries. `[15:04:05.000] LEVEL: message key="value" n=3 obj={"a":1}`: strings are quoted
// with their line breaks escaped, other values are JSON. An error is `err="message"`, its causes'
// messages included; a bug's stack (expected errors have none) ends the line as one escaped string,
// `stack="…"`, kept whole because it is all there is to find the bug by, and JSON-decodable back.

/** An entry as pino writes it: level, time and msg, then the fields. */
type Entry = Record<string, unknown>;

const LEVEL_LABELS: Readonly<Record<number, string>> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
const HEADER_KEYS = new Set(["level", "time", "msg"]);

/** A pino destination that turns each JSON entry into one text line on `destination`. */
export function textLines(destination: NodeJS.WritableStream): { write(json: string): void } {
  return { write: (json) => void destination.write(`${formatEntry(JSON.parse(json) as Entry)}\n`) };
}

function formatEntry(entry: Entry): string {
  const fields: string[] = [];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (HEADER_KEYS.has(key)) continue;
    const error = errorParts(value);
    if (key === "err" && error) {
      fields.push(`err=${quote(error.message)}`);
      stack ??= error.stack;
    } else {
      fields.push(`${key}=${formatValue(value)}`);
    }
  }
  if (stack !== undefined) fields.push(`stack=${quote(stack)}`);
  const message = typeof entry.msg === "string" && entry.msg !== "" ? [escapeControlCharacters(entry.msg)] : [];
  return [`${header(entry)}:`, ...message, ...fields].join(" ");
}

function header(entry: Entry): string {
  const label = typeof entry.level === "number" ? (LEVEL_LABELS[entry.level] ?? `LEVEL${entry.level}`) : "LOG";
  const time = typeof entry.time === "string" || typeof entry.time === "number" ? new Date(entry.time) : undefined;
  return time === undefined || Number.isNaN(time.getTime()) ? label : `[${clockTime(time)}] ${label}`;
}

/** Local wall-clock time to the millisecond: what a person at the terminal compares with. */
function clockTime(time: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, "0")}`;
}

/** The message and stack of a serialized error (pino's `err` serializer), if `value` is one. */
function errorParts(value: unknown): { message: string; stack?: string } | undefined {
  if (typeof value !== "object" || value === null || !("message" in value) || typeof value.message !== "string") return undefined;
  const stack = "stack" in value && typeof value.stack === "string" ? value.stack : undefined;
  return stack === undefined ? { message: value.message } : { message: value.message, stack };
}

function formatValue(value: unknown): string {
  return typeof value === "string" ? quote(value) : (JSON.stringify(value) ?? String(value));
}

/** A double-quoted string with quotes, backslashes and control characters escaped (JSON's rules). */
function quote(text: string): string {
  return JSON.stringify(text);
}

/** The message is left unquoted for reading; only what would break the line is escaped. */
function escapeControlCharacters(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (character) => JSON.stringify(character).slice(1, -1));
}
