import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { HealthCheckSet, mountHealthEndpoint } from "./health.ts";

function appWith(...checks: { name: string; fail?: string }[]): Hono {
  const set = new HealthCheckSet();
  set.add(
    ...checks.map(({ name, fail }) => ({
      name,
      check: () => {
        if (fail) throw new Error(fail);
      },
    })),
  );
  const app = new Hono();
  mountHealthEndpoint(app, "healthz", set);
  return app;
}

async function get(app: Hono, path: string): Promise<{ status: number; body: string; type: string | null }> {
  const response = await app.request(path);
  return { status: response.status, body: await response.text(), type: response.headers.get("content-type") };
}

describe("health endpoints in the API server's format", () => {
  test("all passing: 'ok', as plain text", async () => {
    expect(await get(appWith({ name: "a" }, { name: "b" }), "/healthz")).toEqual({
      status: 200,
      body: "ok",
      type: "text/plain; charset=utf-8",
    });
  });

  test("?verbose lists every check, then 'healthz check passed'", async () => {
    const { status, body } = await get(appWith({ name: "a" }, { name: "b" }), "/healthz?verbose");
    expect(status).toBe(200);
    expect(body).toBe("[+]a ok\n[+]b ok\nhealthz check passed\n");
  });

  test("a failure answers 500, always verbose, with the reason withheld", async () => {
    const { status, body } = await get(appWith({ name: "a" }, { name: "b", fail: "secret detail" }), "/healthz");
    expect(status).toBe(500);
    expect(body).toBe("[+]a ok\n[-]b failed: reason withheld\nhealthz check failed\n");
  });

  test("/healthz/<check> runs one check and shows its reason", async () => {
    const app = appWith({ name: "a" }, { name: "b", fail: "lease not renewed" });
    expect(await get(app, "/healthz/a")).toMatchObject({ status: 200, body: "ok" });
    expect(await get(app, "/healthz/b")).toMatchObject({ status: 500, body: "internal server error: lease not renewed\n" });
    expect((await get(app, "/healthz/none")).status).toBe(404);
  });

  test("?exclude=<check> skips it and says so", async () => {
    const app = appWith({ name: "a" }, { name: "b", fail: "down" });
    expect(await get(app, "/healthz?exclude=b")).toMatchObject({ status: 200, body: "ok" });
    expect((await get(app, "/healthz?exclude=b&verbose")).body).toBe("[+]a ok\n[+]b excluded: ok\nhealthz check passed\n");
  });

  test("excluding an unknown check warns in the output", async () => {
    const { body } = await get(appWith({ name: "a" }), "/healthz?exclude=nope&verbose");
    expect(body).toBe('warn: some health checks cannot be excluded: no matches for "nope"\n[+]a ok\nhealthz check passed\n');
  });

  test("checks are listed by name, whatever order they were added in", async () => {
    const { body } = await get(appWith({ name: "leaderElection" }, { name: "garbagecollector" }, { name: "leader-probe" }, { name: "replicaset" }), "/healthz?verbose");
    expect(body).toBe("[+]garbagecollector ok\n[+]leader-probe ok\n[+]leaderElection ok\n[+]replicaset ok\nhealthz check passed\n");
  });

  test("checks added later take their place by name too", () => {
    const set = new HealthCheckSet();
    set.add({ name: "b", check: () => undefined });
    set.add({ name: "c", check: () => undefined }, { name: "a", check: () => undefined });
    expect(set.list().map((check) => check.name)).toEqual(["a", "b", "c"]);
  });

  test("with no checks registered a ping check answers", async () => {
    expect((await get(appWith(), "/healthz?verbose")).body).toBe("[+]ping ok\nhealthz check passed\n");
  });
});
