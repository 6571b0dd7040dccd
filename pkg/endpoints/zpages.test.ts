import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { parse as parseYaml } from "yaml";
import { mountFlagz } from "./flagz.ts";
import { type ComponentFacts, mountStatusz } from "./statusz.ts";

const startedAt = Date.parse("2026-05-01T09:05:03.750Z");
const facts: ComponentFacts = { name: "kube-loom", startedAt, binaryVersion: "0.1.0", emulationVersion: "1.37", runtimeVersion: "Bun 1.4.5" };
const flags = { "secure-port": "10257", controllers: "[*]", "controller-shutdown-timeout": "10s" };

function app(): Hono {
  const app = new Hono();
  for (const path of ["/healthz", "/healthz/*", "/metrics", "/debug/status", "/debug/controllers/:controller/*"]) app.get(path, (c) => c.text("ok"));
  mountFlagz(app, "kube-loom", flags);
  mountStatusz(app, facts);
  return app;
}

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await app().request(path, { headers });
  return { status: response.status, type: response.headers.get("content-type"), warning: response.headers.get("warning"), body: await response.text() };
}

const statuszKind = "application/json;as=Statusz;v=v1beta1;g=config.k8s.io";
const flagzKind = "application/json;as=Flagz;v=v1beta1;g=config.k8s.io";

describe("/statusz", () => {
  test("without an Accept header: text for people, with kube-loom's facts, one delimiter throughout", async () => {
    const { status, type, body } = await get("/statusz");
    expect(status).toBe(200);
    expect(type).toBe("text/plain; charset=utf-8");
    const [, title, warning, blank, ...lines] = body.split("\n");
    expect([title, blank]).toEqual(["kube-loom statusz", ""]);
    expect(warning).toStartWith("Warning: ");
    const delimiter = /^Started(: |:|=| ) /.exec(lines[0] ?? "")?.[1];
    expect(lines).toEqual([
      `Started${delimiter} Fri May  1 09:05:03 UTC 2026`,
      expect.stringMatching(new RegExp(`^Up${delimiter} \\d+ hr \\d\\d min \\d\\d sec$`)),
      `Runtime version${delimiter} Bun 1.4.5`,
      `Binary version${delimiter} 0.1.0`,
      `Emulation version${delimiter} 1.37`,
      `Paths${delimiter} /debug /flagz /healthz /metrics`,
      "",
    ]);
  });

  test("*/* and text/plain also get the text", async () => {
    expect((await get("/statusz", { Accept: "*/*" })).type).toStartWith("text/plain");
    expect((await get("/statusz", { Accept: "text/plain" })).type).toStartWith("text/plain");
  });

  test("the structured v1beta1 form for a clause naming it, as upstream encodes it", async () => {
    const { status, type, warning, body } = await get("/statusz", { Accept: statuszKind });
    expect(status).toBe(200);
    expect(type).toBe("application/json;g=config.k8s.io;v=v1beta1;as=Statusz");
    expect(warning).toBeNull();
    expect(body.endsWith("}\n")).toBe(true);
    const object = JSON.parse(body);
    expect(Object.keys(object)).toEqual(["kind", "apiVersion", "metadata", "startTime", "uptimeSeconds", "goVersion", "binaryVersion", "emulationVersion", "paths"]);
    expect(object).toMatchObject({
      kind: "Statusz",
      apiVersion: "config.k8s.io/v1beta1",
      metadata: { name: "kube-loom" },
      startTime: "2026-05-01T09:05:03Z",
      goVersion: "Bun 1.4.5",
      binaryVersion: "0.1.0",
      emulationVersion: "1.37",
      paths: ["/debug", "/flagz", "/healthz", "/metrics"],
    });
    expect(object.uptimeSeconds).toBeGreaterThan(0);
  });

  test("v1alpha1 is still served, with a deprecation warning", async () => {
    const { status, warning, body } = await get("/statusz", { Accept: statuszKind.replace("v1beta1", "v1alpha1") });
    expect(status).toBe(200);
    expect(JSON.parse(body).apiVersion).toBe("config.k8s.io/v1alpha1");
    expect(warning).toStartWith('299 - "');
  });

  test("YAML, keys sorted as Go's YAML encoder sorts them", async () => {
    const { type, body } = await get("/statusz", { Accept: "application/yaml;as=Statusz;v=v1beta1;g=config.k8s.io" });
    expect(type).toBe("application/yaml;g=config.k8s.io;v=v1beta1;as=Statusz");
    expect(body).toStartWith("apiVersion: config.k8s.io/v1beta1\nbinaryVersion: 0.1.0\n");
    expect(parseYaml(body)).toMatchObject({ kind: "Statusz", emulationVersion: "1.37" });
  });

  test("q values order the clauses", async () => {
    expect((await get("/statusz", { Accept: `${statuszKind};q=0.5, text/plain` })).type).toStartWith("text/plain");
    expect((await get("/statusz", { Accept: `text/plain;q=0.5, ${statuszKind}` })).type).toStartWith("application/json");
  });

  test("?pretty=true indents the JSON", async () => {
    expect((await get("/statusz?pretty=true", { Accept: statuszKind })).body).toStartWith('{\n  "kind": "Statusz",');
  });

  test.each(["application/json", "application/json;as=Statusz;v=v1;g=config.k8s.io", "application/json;as=Flagz;v=v1beta1;g=config.k8s.io", "application/xml"])(
    "%p: 406 with a v1 Status naming what is accepted",
    async (accept) => {
      const { status, type, body } = await get("/statusz", { Accept: accept });
      expect(status).toBe(406);
      expect(type).toBe("application/json");
      expect(JSON.parse(body)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "only the following media types are accepted: application/json, application/yaml, text/plain",
        reason: "NotAcceptable",
        code: 406,
      });
    },
  );
});

describe("/flagz", () => {
  test("text: every flag, sorted, with the same delimiter on every line and every request (made once, as upstream caches it)", async () => {
    const app = (() => {
      const hono = new Hono();
      mountFlagz(hono, "kube-loom", flags);
      return hono;
    })();
    const first = await (await app.request("/flagz")).text();
    const [, title, warning, ...lines] = first.split("\n");
    expect(title).toBe("kube-loom flagz");
    expect(warning).toStartWith("Warning: ");
    const delimiter = /^controller-shutdown-timeout(:|: |=| )10s$/.exec(lines[0] ?? "")?.[1];
    expect(lines).toEqual([`controller-shutdown-timeout${delimiter}10s`, `controllers${delimiter}[*]`, `secure-port${delimiter}10257`, ""]);
    for (let i = 0; i < 5; i++) expect(await (await app.request("/flagz")).text()).toBe(first);
  });

  test("the structured v1beta1 form: flags by name, sorted", async () => {
    const { status, type, body } = await get("/flagz", { Accept: flagzKind });
    expect(status).toBe(200);
    expect(type).toBe("application/json;g=config.k8s.io;v=v1beta1;as=Flagz");
    expect(body).toBe(
      '{"kind":"Flagz","apiVersion":"config.k8s.io/v1beta1","metadata":{"name":"kube-loom"},"flags":{"controller-shutdown-timeout":"10s","controllers":"[*]","secure-port":"10257"}}\n',
    );
  });

  test("asked for a Statusz: 406", async () => {
    expect((await get("/flagz", { Accept: statuszKind })).status).toBe(406);
  });
});
