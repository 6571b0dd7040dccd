import { expect, test } from "bun:test";
import { namespaceOfPath } from "./path-namespace.ts";

test("the namespace a request path addresses; cluster-scoped paths and Namespace objects give ''", () => {
  expect(namespaceOfPath("/api/v1/namespaces/team-a/pods")).toBe("team-a");
  expect(namespaceOfPath("/api/v1/namespaces/team-a/pods/web-0/status?fieldManager=x")).toBe("team-a");
  expect(namespaceOfPath("/apis/apps/v1/namespaces/team-b/replicasets/web")).toBe("team-b");
  expect(namespaceOfPath("/apis/events.k8s.io/v1/namespaces/default/events")).toBe("default");
  expect(namespaceOfPath("/api/v1/namespaces/team-a")).toBe("");
  expect(namespaceOfPath("/api/v1/namespaces/team-a/finalize")).toBe("");
  expect(namespaceOfPath("/api/v1/nodes/node-1")).toBe("");
  expect(namespaceOfPath("/apis/rbac.authorization.k8s.io/v1/clusterroles/x")).toBe("");
});
