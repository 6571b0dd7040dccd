import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ephemeralPortRange, freeLoopbackPorts } from "./free-ports.ts";

test("picked ports lie below the ephemeral range, where no outgoing connection can take one before the server binds it", async () => {
  const { first } = ephemeralPortRange();
  for (let round = 0; round < 20; round++) {
    const ports = await freeLoopbackPorts(["a", "b", "c"] as const);
    expect(new Set(Object.values(ports)).size).toBe(3);
    for (const port of Object.values(ports)) expect(port).toBeLessThan(first);
  }
});

test("the ephemeral range is read from the kernel's file, with a default where there is none", () => {
  const file = join(mkdtempSync(join(tmpdir(), "ports-")), "ip_local_port_range");
  writeFileSync(file, "32768\t60999\n");
  expect(ephemeralPortRange(file)).toEqual({ first: 32768, last: 60999 });
  expect(ephemeralPortRange(join(file, "missing"))).toEqual({ first: 49152, last: 65535 });
});
