// --client-ca-file: the authorities whose client certificates authenticate a caller, read at
// start (an unusable file stops kube-loom) and followed on disk afterwards.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { ServingError } from "./serving-error.ts";
import type { Poll } from "./poll-for-changes.ts";
import { watchFiles } from "./watched-files.ts";
import { errorMessage } from "../errors/expected-error.ts";

export interface ClientCa {
  initial: string;
  watch(onChange: (bundle: string) => void, onError: (err: unknown) => void): Poll;
}

export function loadClientCa(path: string): ClientCa {
  const name = `--client-ca-file ${path}`;
  let initial: string;
  try {
    initial = readFileSync(path, "utf8");
  } catch (err) {
    throw new ServingError(`cannot read ${name}: ${errorMessage(err)}`, { cause: err });
  }
  checkBundle(initial, name);
  return {
    initial,
    watch: (onChange, onError) =>
      watchFiles(
        [path],
        [initial],
        ([bundle = ""]) => {
          checkBundle(bundle, name);
          onChange(bundle);
        },
        onError,
      ),
  };
}

/** Throws a ServingError naming `name` unless the bundle holds at least one readable PEM certificate. */
export function checkBundle(bundle: string, name: string): void {
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new ServingError(`${name} holds no PEM certificate`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new ServingError(`${name} holds a certificate that cannot be read: ${errorMessage(err)}`, { cause: err });
    }
  }
}
