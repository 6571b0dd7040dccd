import { describe, expect, test } from "bun:test";
import { AbsentOwnerCache } from "./absent-owner-cache.ts";
import { graphDebugRoute } from "./debug-graph.ts";
import { GraphBuilder } from "./graph-builder.ts";

function graphWithChain() {
  const queue = { add: () => undefined, addRateLimited: () => undefined };
  const builder = new GraphBuilder({ attemptToDelete: queue, attemptToOrphan: queue, absentOwners: new AbsentOwnerCache() });
  const add = (name: string, owner?: string) =>
    builder.observe({
      type: "add",
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      object: {
        metadata: {
          namespace: "ns",
          name,
          uid: `uid-${name}`,
          ...(owner ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: owner, uid: `uid-${owner}` }] } : {}),
        },
      },
    });
  add("a");
  add("b", "a");
  add("c", "b");
  add("lonely");
  add("x", "missing-owner");
  return builder.graph;
}

async function get(query = ""): Promise<string> {
  const route = graphDebugRoute("garbagecollector", graphWithChain());
  expect(route.path).toBe("graph");
  const response = await route.handler(new Request(`http://localhost/debug/controllers/garbagecollector/graph${query}`));
  expect(response.headers.get("Content-Type")).toContain("text/vnd.graphviz");
  return response.text();
}

describe("the graph debug page", () => {
  test("renders owners and dependents as DOT, edges from dependent to owner, unrelated objects left out", async () => {
    const dot = await get();
    expect(dot.startsWith("strict digraph full {\n")).toBe(true);
    expect(dot).toContain('    label="uid=uid-b\\nnamespace=ns\\nReplicaSet.v1.apps/b\\n"');
    expect(dot).toContain('    virtual="true"');
    expect(dot).not.toContain("lonely");
    const ids = new Map([...dot.matchAll(/ {2}(\d+) \[\n {4}label="uid=([^\\]+)/g)].map((m) => [m[2], m[1]]));
    expect(dot).toContain(`  ${ids.get("uid-b")} -> ${ids.get("uid-a")};`);
    expect(dot).toContain(`  ${ids.get("uid-c")} -> ${ids.get("uid-b")};`);
  });

  test("?uid= limits the page to what is connected to those objects", async () => {
    const dot = await get("?uid=uid-c");
    expect(dot).toContain("uid=uid-a\\n");
    expect(dot).not.toContain("missing-owner");
    expect(await get("?uid=uid-x")).not.toContain("uid=uid-a\\n");
  });
});
