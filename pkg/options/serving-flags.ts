// Where kube-loom serves /healthz, /livez, /readyz, /metrics and the debug pages: HTTPS on
// --secure-port as kube-controller-manager does (names and defaults are its own), and plain
// HTTP on --port only when asked, on loopback unless told otherwise.
import { intFlag, ipFlag, stringFlag, stringListFlag, type FlagDefinition } from "./flag-definition.ts";
import { insecureCipherSuiteNames, preferredCipherSuiteNames, tlsVersions } from "../server/tls-parameters.ts";

const SECURE_SERVING = "Secure serving";
const INSECURE_SERVING = "Insecure serving";

export const bindAddressFlag = ipFlag({
  name: "bind-address",
  group: SECURE_SERVING,
  default: "0.0.0.0",
  help: "The IP address --secure-port listens on; 0.0.0.0 or :: listens on every interface. Whoever scrapes /metrics and the kubelet's probes must be able to reach it.",
});

export const securePortFlag = intFlag({
  name: "secure-port",
  group: SECURE_SERVING,
  default: 10257,
  min: 0,
  max: 65535,
  help: "The port for HTTPS, where every request except --authorization-always-allow-paths must be authenticated and authorized. 0 turns HTTPS off.",
});

export const certDirFlag = stringFlag({
  name: "cert-dir",
  group: SECURE_SERVING,
  default: "",
  help: "Folder for the self-signed certificate and key (kube-loom.crt, kube-loom.key): reused when they are there, written when they are not. Empty: a new pair is made in memory at every start. Not used when --tls-cert-file and --tls-private-key-file are given.",
});

export const tlsCertFileFlag = stringFlag({
  name: "tls-cert-file",
  group: SECURE_SERVING,
  default: "",
  help: "PEM certificate to serve HTTPS with, followed by any intermediate CA certificates; read again whenever it changes. Without it and --tls-private-key-file a self-signed certificate is made (see --cert-dir).",
});

export const tlsPrivateKeyFileFlag = stringFlag({
  name: "tls-private-key-file",
  group: SECURE_SERVING,
  default: "",
  help: "PEM private key of --tls-cert-file; read again whenever it changes.",
});

export const tlsCipherSuitesFlag = stringListFlag({
  name: "tls-cipher-suites",
  group: SECURE_SERVING,
  default: [],
  help: [
    "Cipher suites the server accepts for TLS 1.2 and older, by their IANA names; TLS 1.3 always uses the runtime's suites. Empty: the runtime's defaults. Not available on Deno.",
    `Preferred values: ${preferredCipherSuiteNames.join(", ")}.`,
    `Insecure values: ${insecureCipherSuiteNames.join(", ")}.`,
  ].join("\n"),
});

export const tlsMinVersionFlag = stringFlag({
  name: "tls-min-version",
  group: SECURE_SERVING,
  default: "",
  help: `The oldest TLS version accepted (default: the runtime's, TLS 1.2). One of: ${Object.keys(tlsVersions).join(", ")}.`,
});

export const addressFlag = ipFlag({
  name: "address",
  group: INSECURE_SERVING,
  default: "127.0.0.1",
  help: "The IP address --port listens on. Loopback by default: plain HTTP asks nobody for credentials, so whoever reaches it reads /metrics and the debug pages.",
});

export const portFlag = intFlag({
  name: "port",
  group: INSECURE_SERVING,
  default: 0,
  min: 0,
  max: 65535,
  help: "A port for plain HTTP without authentication or authorization, for local development. 0 (the default) turns it off.",
});

export const servingFlags: readonly FlagDefinition[] = [
  bindAddressFlag,
  securePortFlag,
  certDirFlag,
  tlsCertFileFlag,
  tlsPrivateKeyFileFlag,
  tlsCipherSuitesFlag,
  tlsMinVersionFlag,
  addressFlag,
  portFlag,
];
