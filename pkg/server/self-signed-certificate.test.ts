import { describe, expect, test } from "bun:test";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { generateSelfSignedCertificate, ipBytes } from "./self-signed-certificate.ts";

function certificates(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g) ?? []).map((block) => new X509Certificate(block));
}

describe("self-signed serving certificate", () => {
  const now = new Date("2026-03-01T12:00:00Z");
  const pair = generateSelfSignedCertificate({ host: "localhost", alternateIps: ["127.0.0.1", "::1"], alternateDnsNames: ["localhost"], now });
  const [server, ca] = certificates(pair.certPem);

  test("a server certificate signed by its own CA, which follows it in the file", () => {
    expect(server && ca).toBeTruthy();
    expect(server?.verify(ca!.publicKey)).toBe(true);
    expect(ca?.verify(ca.publicKey)).toBe(true);
    expect(server?.checkIssued(ca!)).toBe(true);
    expect(ca?.ca).toBe(true);
    expect(server?.ca).toBe(false);
  });

  test("the key belongs to the server certificate", () => {
    expect(server?.checkPrivateKey(createPrivateKey(pair.keyPem))).toBe(true);
    expect(pair.keyPem).toStartWith("-----BEGIN RSA PRIVATE KEY-----");
  });

  test("names as client-go's generator gives them, each alternate name once", () => {
    const unix = Math.floor(now.getTime() / 1000);
    expect(server?.subject).toBe(`CN=localhost@${unix}`);
    expect(ca?.subject).toBe(`CN=localhost-ca@${unix}`);
    expect(server?.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
    expect(server?.keyUsage ?? []).toContain("1.3.6.1.5.5.7.3.1");
  });

  test("valid from an hour ago for a year", () => {
    expect(new Date(server!.validFrom).toISOString()).toBe("2026-03-01T11:00:00.000Z");
    expect(new Date(server!.validTo).toISOString()).toBe("2027-03-01T11:00:00.000Z");
  });

  test("an IP address as host goes into the IP names", () => {
    const [leaf] = certificates(generateSelfSignedCertificate({ host: "10.0.0.7", alternateIps: [], alternateDnsNames: [] }).certPem);
    expect(leaf?.subjectAltName).toBe("IP Address:10.0.0.7");
  });
});

describe("ipBytes", () => {
  test("IPv4, IPv6 with ::, and IPv6 ending in dotted IPv4", () => {
    expect([...ipBytes("10.1.2.3")]).toEqual([10, 1, 2, 3]);
    expect([...ipBytes("fe80::1:2")]).toEqual([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2]);
    expect([...ipBytes("::ffff:1.2.3.4")]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect([...ipBytes("::")]).toEqual(new Array(16).fill(0));
  });
});
