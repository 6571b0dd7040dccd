import { expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { type ClientConfig, ClientConfigError } from "../kube/client-config.ts";
import { createKubeClient } from "../kube/client.ts";
import { silentLogger } from "../log/logger.ts";
import { waitForApiServer } from "./wait-for-apiserver.ts";

const config: ClientConfig = { server: "https://api.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" };

test("an API server that never answers is asked until the whole timeout has passed, and the error says how long it waited", async () => {
  const clock = new FakeClock();
  const asked: number[] = [];
  const client = await createKubeClient(config, {
    qps: 0,
    burst: 0,
    timeoutMs: 1000,
    fetch: async () => {
      asked.push(clock.monotonic());
      throw new TypeError("connect ECONNREFUSED 127.0.0.1:6443");
    },
  });
  let failure: unknown;
  const waiting = waitForApiServer(client, { timeoutMs: 2500, intervalMs: 1000, logger: silentLogger, clock }).catch((err: unknown) => (failure = err));
  for (let step = 0; step < 40 && failure === undefined; step++) {
    await Bun.sleep(1);
    await clock.advance(100);
  }
  await waiting;
  // Every second from the start, and once more at the deadline rather than giving up half a second early.
  expect(asked).toEqual([0, 1000, 2000, 2500]);
  expect(String(failure)).toContain("API server https://api.test not healthy after 2.5s");
});

test("a credential that cannot work (a ClientConfigError) ends the wait at once, with its own message", async () => {
  const clock = new FakeClock();
  let asked = 0;
  const refusing: ClientConfig = {
    ...config,
    authenticate: async () => {
      throw new ClientConfigError('the exec credential plugin of user "u" answered with a client certificate');
    },
  };
  const client = await createKubeClient(refusing, {
    qps: 0,
    burst: 0,
    timeoutMs: 1000,
    fetch: async () => {
      asked++;
      return new Response("ok");
    },
  });
  const failure = await waitForApiServer(client, { timeoutMs: 60_000, logger: silentLogger, clock }).then(() => undefined, (err: unknown) => err);
  expect(failure).toBeInstanceOf(ClientConfigError);
  expect(asked).toBe(0);
});
