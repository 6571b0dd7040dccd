// Where kube-loom serves /healthz, /livez, /readyz, /metrics and the debug pages: HTTPS on
// --secure-port as kube-controller-manager does (names and defaults are its own), and plain
// HTTP on --port only when asked, on loopback unless told otherwise.
import type { FlagDefinition } from "./flag-definition.ts";
import { flagGroup } from "./flag-group.ts";
import { curveIdNames } from "../tls/tls-curves.ts";
import { insecureCipherSuiteNames, preferredCipherSuiteNames, tlsVersions } from "../tls/tls-parameters.ts";

const secureServing = flagGroup("Secure serving");
const insecureServing = flagGroup("Insecure serving");

export const bindAddressFlag = secureServing.ip("bind-address", "0.0.0.0",
  "The IP address --secure-port listens on; 0.0.0.0 or :: listens on every interface. Whoever scrapes /metrics and the kubelet's probes must be able to reach it.");

export const securePortFlag = secureServing.int("secure-port", 10257,
  "The port for HTTPS, where every request except --authorization-always-allow-paths must be authenticated and authorized. 0 turns HTTPS off.", { min: 0, max: 65535 });

export const certDirFlag = secureServing.string("cert-dir", "",
  "Folder for the self-signed certificate and key, named after the program (kube-loom.crt, kube-loom.key): reused when they are there, written when they are not. Empty: a new pair is made in memory at every start. Not used when --tls-cert-file and --tls-private-key-file are given.");

export const tlsCertFileFlag = secureServing.string("tls-cert-file", "",
  "PEM certificate to serve HTTPS with, followed by any intermediate CA certificates; read again whenever it changes. Without it and --tls-private-key-file a self-signed certificate is made (see --cert-dir).");

export const tlsPrivateKeyFileFlag = secureServing.string("tls-private-key-file", "", "PEM private key of --tls-cert-file; read again whenever it changes.");

export const tlsCipherSuitesFlag = secureServing.stringList("tls-cipher-suites", [], [
  "Cipher suites the server accepts for TLS 1.2 and older, by their IANA names; TLS 1.3 always uses the runtime's suites. Empty: the runtime's defaults. Not available on Deno.",
  `Preferred values: ${preferredCipherSuiteNames.join(", ")}.`,
  `Insecure values: ${insecureCipherSuiteNames.join(", ")}.`,
].join("\n"));

export const tlsCurvePreferencesFlag = secureServing.intList("tls-curve-preferences", [], [
  "Key exchanges the server accepts, by the numbers of Go's crypto/tls CurveID; whatever their order, they are preferred in Go's own order. Empty: the runtime's defaults. An ID the runtime's TLS library lacks is refused at start (Bun's lacks 4587 and 4589); not available on Deno.",
  `Values: ${curveIdNames.join(", ")}.`,
].join("\n"));

export const tlsMinVersionFlag = secureServing.string("tls-min-version", "",
  `The oldest TLS version accepted (default: the runtime's, TLS 1.2). One of: ${Object.keys(tlsVersions).join(", ")}.`);

export const addressFlag = insecureServing.ip("address", "127.0.0.1",
  "The IP address --port listens on. Loopback by default: plain HTTP asks nobody for credentials, so whoever reaches it reads /metrics and the debug pages.");

export const portFlag = insecureServing.int("port", 0,
  "A port for plain HTTP without authentication or authorization, for local development. 0 (the default) turns it off.", { min: 0, max: 65535 });

export const servingFlags: readonly FlagDefinition[] = [
  bindAddressFlag,
  securePortFlag,
  certDirFlag,
  tlsCertFileFlag,
  tlsPrivateKeyFileFlag,
  tlsCipherSuitesFlag,
  tlsCurvePreferencesFlag,
  tlsMinVersionFlag,
  addressFlag,
  portFlag,
];
