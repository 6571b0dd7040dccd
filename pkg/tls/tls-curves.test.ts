import { describe, expect, test } from "bun:test";
import { curveIdNames, curvePreferencesProblem, ecdhCurveList } from "./tls-curves.ts";

describe("--tls-curve-preferences", () => {
  test("the IDs Go 1.26 knows, by number", () => {
    expect(curveIdNames).toEqual([
      "23 (CurveP256)",
      "24 (CurveP384)",
      "25 (CurveP521)",
      "29 (X25519)",
      "4587 (SecP256r1MLKEM768)",
      "4588 (X25519MLKEM768)",
      "4589 (SecP384r1MLKEM1024)",
    ]);
  });

  test("kube-controller-manager's checks: range, duplicates, IDs its Go knows", () => {
    expect(curvePreferencesProblem([])).toBeUndefined();
    expect(curvePreferencesProblem([0])).toBe("curve ID 0 is out of range (1-65535)");
    expect(curvePreferencesProblem([65_536])).toBe("curve ID 65536 is out of range (1-65535)");
    expect(curvePreferencesProblem([23, 23])).toBe("curve ID 23 is given twice");
    expect(curvePreferencesProblem([30])).toStartWith("curve ID 30 is not one Go's crypto/tls knows (23 (CurveP256), ");
  });

  test.skipIf(!("Bun" in globalThis))("on Bun, whose BoringSSL has X25519MLKEM768 but not the NIST-curve hybrids", () => {
    expect(curvePreferencesProblem([4588, 29, 23, 24, 25])).toBeUndefined();
    expect(curvePreferencesProblem([29, 4587])).toMatch(/^curve ID 4587 \(SecP256r1MLKEM768\) is not available in Bun \S+'s TLS library$/);
  });

  test("node:tls group names in Go's order of preference, whatever the order given", () => {
    expect(ecdhCurveList([])).toBeUndefined();
    expect(ecdhCurveList([25, 23, 29, 4588])).toBe("X25519MLKEM768:X25519:P-256:P-521");
  });
});
