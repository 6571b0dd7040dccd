// /debug/controllers/garbagecollector/graph: the dependency graph in Graphviz DOT, with the node
// attributes kube-controller-manager's page has (render with `dot -Tsvg`). `?uid=` (repeatable)
// limits it to the objects connected to those UIDs. Edges point from dependent to owner.
import { groupOf } from "../../pkg/kube/gvr.ts";
import type { OwnerReference } from "../../pkg/kube/objects.ts";
import type { DebugRoute } from "../../pkg/debug/debug-route.ts";
import type { DependencyGraph, GraphNode, ObjectIdentity } from "./graph.ts";

interface Vertex {
  id: number;
  identity: ObjectIdentity;
  missing: boolean;
  beingDeleted: boolean;
  deletingDependents: boolean;
  virtual: boolean;
}

export function graphDebugRoute(controller: string, graph: DependencyGraph): DebugRoute {
  return {
    controller,
    path: "graph",
    handler(request) {
      const uids = new URL(request.url).searchParams.getAll("uid");
      const dot = renderDot(uids.length > 0 ? connectedTo(graph, uids) : [...graph.values()]);
      return new Response(dot, { headers: { "Content-Type": "text/vnd.graphviz; charset=utf-8" } });
    },
  };
}

/** Every node reachable from `uids` through owners and dependents. */
function connectedTo(graph: DependencyGraph, uids: readonly string[]): GraphNode[] {
  const found = new Map<string, GraphNode>();
  const pending = [...uids];
  for (let uid = pending.pop(); uid !== undefined; uid = pending.pop()) {
    const node = graph.get(uid);
    if (!node || found.has(uid)) continue;
    found.set(uid, node);
    pending.push(...node.owners.map((ref) => ref.uid), ...[...node.dependents].map((dependent) => dependent.uid));
  }
  return [...found.values()];
}

/** Objects neither owning nor owned are left out, as upstream leaves them out. */
function renderDot(nodes: readonly GraphNode[]): string {
  const vertices = new Map<string, Vertex>();
  const vertexOf = (identity: ObjectIdentity, node: GraphNode | undefined): Vertex => {
    let vertex = vertices.get(identity.uid);
    if (!vertex) {
      vertex = {
        id: vertices.size + 1,
        identity,
        missing: node === undefined,
        beingDeleted: node?.beingDeleted ?? false,
        deletingDependents: node?.deletingDependents ?? false,
        virtual: node?.virtual ?? false,
      };
      vertices.set(identity.uid, vertex);
    }
    return vertex;
  };
  const related = nodes.filter((node) => node.owners.length > 0 || node.dependents.size > 0);
  for (const node of related) vertexOf(node, node);
  const edges: string[] = [];
  for (const node of related) {
    const from = vertexOf(node, node);
    for (const ref of node.owners) edges.push(`  ${from.id} -> ${(vertices.get(ref.uid) ?? vertexOf(missingOwner(ref), undefined)).id};`);
  }
  const lines = ["strict digraph full {", "  // Node definitions."];
  for (const vertex of vertices.values()) lines.push(...vertexLines(vertex));
  lines.push("  // Edge definitions.", ...edges, "}");
  return `${lines.join("\n")}\n`;
}

function missingOwner(ref: OwnerReference): ObjectIdentity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: "" };
}

function vertexLines(vertex: Vertex): string[] {
  const { identity } = vertex;
  const group = groupOf(identity.apiVersion);
  const version = identity.apiVersion.slice(group ? group.length + 1 : 0);
  const conditions = (["beingDeleted", "deletingDependents", "virtual", "missing"] as const).filter((flag) => vertex[flag]);
  const label = [
    `uid=${identity.uid}`,
    `namespace=${identity.namespace}`,
    `${identity.kind}.${version}${group ? `.${group}` : ""}/${identity.name}`,
    ...(conditions.length > 0 ? [conditions.join(",")] : []),
  ];
  const attributes: [string, string][] = [
    ["label", `${label.map(escape).join("\\n")}\\n`],
    ["group", escape(group)],
    ["version", escape(version)],
    ["kind", escape(identity.kind)],
    ["namespace", escape(identity.namespace)],
    ["name", escape(identity.name)],
    ["uid", escape(identity.uid)],
    ["missing", String(vertex.missing)],
    ["beingDeleted", String(vertex.beingDeleted)],
    ["deletingDependents", String(vertex.deletingDependents)],
    ["virtual", String(vertex.virtual)],
  ];
  return [`  ${vertex.id} [`, ...attributes.map(([key, value]) => `    ${key}="${value}"`), "  ];"];
}

function escape(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
