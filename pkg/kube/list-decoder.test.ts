import { describe, expect, test } from "bun:test";
import { decodeObjectList } from "./list-decoder.ts";

const encoder = new TextEncoder();

async function* chunksOf(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = encoder.encode(text);
  // Copies, as a network stream hands out fresh buffers.
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function decodeText(text: string, chunkSize = 7): Promise<unknown> {
  return decodeObjectList(chunksOf(text, chunkSize));
}

/** Items whose strings hold everything that could fool a splitter. */
const trickyItems = [
  { metadata: { name: "a", annotations: { json: '{"items":[1,2]},{"metadata":{}}', quote: 'say "hi"', slash: "ends with \\" } }, data: { k: "]}]}" } },
  { metadata: { name: "é-ü-日本-🎉" }, data: { nested: [{ metadata: { name: "inner" } }, { metadata: { name: "inner2" } }] } },
  { metadata: { name: "c" }, spec: { list: [[], [{}], { a: [] }], n: 1.5e3, t: true, f: false, z: null } },
];

describe("decodeObjectList", () => {
  test("gives the same list as JSON.parse, however the body is split", async () => {
    const list = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "42", continue: "abc" }, items: trickyItems };
    const text = JSON.stringify(list);
    for (let size = 1; size <= text.length; size++) expect(await decodeText(text, size)).toEqual(list);
  });

  test("nested objects that start like items (a StatefulSet's volumeClaimTemplates) do not end an item early", async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({
      metadata: { name: `sts-${i}` },
      spec: { volumeClaimTemplates: [{ metadata: { name: "data" } }, { metadata: { name: "logs" } }] },
    }));
    const list = { kind: "StatefulSetList", metadata: { resourceVersion: "9" }, items };
    expect(await decodeText(JSON.stringify(list), 4096)).toEqual(list);
  });

  test("a long compact list, as the API server writes it, decodes in order", async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ metadata: { name: `cm-${i}`, resourceVersion: String(i) }, data: { v: "x".repeat(i % 50) } }));
    const list = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5000" }, items };
    expect(await decodeText(JSON.stringify(list), 65536)).toEqual(list);
  });

  test("envelope fields after the items, whitespace and pretty-printing are fine", async () => {
    const list = { items: trickyItems, metadata: { resourceVersion: "7" }, kind: "List" };
    expect(await decodeText(JSON.stringify(list, null, 2), 5)).toEqual(list);
    expect(await decodeText(` \n${JSON.stringify(list)}\n `, 3)).toEqual(list);
  });

  test("an empty list, items null and no items at all are passed through as sent", async () => {
    expect(await decodeText('{"kind":"List","items":[]}')).toEqual({ kind: "List", items: [] });
    expect(await decodeText('{"kind":"PartialObjectMetadataList","items":null}')).toEqual({ kind: "PartialObjectMetadataList", items: null });
    expect(await decodeText('{"kind":"Status","status":"Success"}')).toEqual({ kind: "Status", status: "Success" });
  });

  test("malformed bodies fail with a one-line error", async () => {
    const fails = (text: string) => decodeText(text).then(
      () => "no error",
      (err: Error) => err.message,
    );
    expect(await fails('{"items":[{"metadata":{}}')).toBe("list response: the body ended before the list was complete");
    expect(await fails("")).toBe("list response: the body ended before the list was complete");
    expect(await fails('{"items":[{"a":1},2]}')).toBe("list response: an element of items is not an object");
    expect(await fails('{"items":["x"]}')).toBe("list response: an element of items is not an object");
    expect(await fails("[1,2]")).toBe("list response: the body is not a JSON object");
    expect(await fails('{"items":[]} {}')).toBe("list response: unexpected data after the end of the list");
    expect(await fails('{"items":[{"a":}]}')).toMatch(/JSON/);
  });

  test("a big list in one chunk is decoded in slices: a timer due meanwhile fires before decoding ends", async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ metadata: { name: `cm-${i}`, namespace: "ns", resourceVersion: String(i) }, data: { v: "value" } }));
    const text = JSON.stringify({ kind: "ConfigMapList", metadata: { resourceVersion: "1" }, items });
    let decodingDone = false;
    let timerFiredBeforeEnd: boolean | undefined;
    setTimeout(() => (timerFiredBeforeEnd = !decodingDone), 0);
    const list = await decodeObjectList(chunksOf(text, text.length));
    decodingDone = true;
    expect(list.items).toHaveLength(100_000);
    expect(timerFiredBeforeEnd).toBe(true);
  });
});
