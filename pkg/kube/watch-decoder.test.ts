import { describe, expect, test } from "bun:test";
import type { KubeObject, WatchEvent } from "./objects.ts";
import { JsonWatchDecoder } from "./watch-decoder.ts";

/** Every event of the stream, as the REST client reads them. */
async function* decodeWatchEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<WatchEvent<KubeObject>> {
  const decoder = new JsonWatchDecoder();
  for await (const chunk of stream) yield* decoder.push(chunk);
  yield* decoder.end();
}

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of decodeWatchEvents(streamOf(chunks))) seen.push(`${event.type} ${(event.type === "ERROR" ? "" : event.object.metadata?.name) ?? ""}`);
  return seen;
}

describe("watch stream decoder", () => {
  test("one event per line, whatever the chunk boundaries", async () => {
    const lines = ['{"type":"ADDED","object":{"metadata":{"name":"a"}}}', '{"type":"DELETED","object":{"metadata":{"name":"b"}}}'];
    const text = `${lines.join("\n")}\n`;
    expect(await collect([text])).toEqual(["ADDED a", "DELETED b"]);
    // Split mid-line and mid-multibyte character.
    const withUnicode = '{"type":"MODIFIED","object":{"metadata":{"name":"ü"}}}\n';
    const bytes = new TextEncoder().encode(withUnicode);
    const cut = withUnicode.indexOf("ü") + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, cut));
        controller.enqueue(bytes.slice(cut));
        controller.close();
      },
    });
    const seen: string[] = [];
    for await (const event of decodeWatchEvents(stream)) seen.push(`${event.type} ${(event.type === "ERROR" ? "" : event.object.metadata?.name)}`);
    expect(seen).toEqual(["MODIFIED ü"]);
  });

  test("a last line without a newline still counts; blank lines are skipped", async () => {
    expect(await collect(['\n{"type":"BOOKMARK","object":{"metadata":{"name":"x"}}}'])).toEqual(["BOOKMARK x"]);
  });

  test("a malformed line is an error, not a silent skip", async () => {
    await expect(collect(['{"type":"ADDED"}\n'])).rejects.toThrow("malformed watch event");
    await expect(collect(['{"type":"ADDED","object":null}\n'])).rejects.toThrow("malformed watch event");
  });

  test("a line that is not JSON is named in one line, with an excerpt", async () => {
    await expect(collect(["this is not json\n"])).rejects.toThrow('watch event is not JSON: "this is not json"');
  });
});
