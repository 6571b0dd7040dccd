// Bun's own floor for bench/fixed-memory.ts, compiled as kube-loom is: a program that only sleeps,
// or, given an API server and a client certificate, one that first sends one request over TLS
// (Bun's HTTP client and TLS, which every kube-loom process uses). Says "ready" once idle.
//   bun-floor [SERVER CA_FILE CERT_FILE KEY_FILE]
import { readFileSync } from "node:fs";

const [server, caFile, certFile, keyFile] = process.argv.slice(2);
if (server && caFile && certFile && keyFile) {
  const tls = { ca: readFileSync(caFile, "utf8"), cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  // `tls` is Bun's own fetch option.
  const response = await fetch(`${server}/version`, { tls } as RequestInit);
  if (!response.ok) throw new Error(`GET ${server}/version: ${response.status}`);
  await response.text();
}
console.log("ready");
setInterval(() => undefined, 1 << 30);
