// The version kube-loom reports (--version, user agent, /metrics), taken from package.json.
import pkg from "../package.json" with { type: "json" };

export const version = `v${pkg.version}`;
