// The version kube-loom reports (--version, user agent, /metrics), taken from package.json.
import pkg from "../package.json" with { type: "json" };

export const version = `v${pkg.version}`;

/** The kube-controller-manager release, major.minor, whose behaviour kube-loom follows (/metrics version_info, /statusz). */
export const emulatedKubernetesVersion = "1.37";
