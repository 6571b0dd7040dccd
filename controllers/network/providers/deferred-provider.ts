// A provider built on first use, and built again after a failure that new settings could fix
// (a Secret created or corrected later, rotated credentials), so no restart is needed.
import type { NetworkProvider } from "./provider.ts";
import { wrapNetworkProvider } from "./provider-wrapper.ts";

export interface DeferredProviderOptions {
  kind: string;
  /** Reads the settings and builds the provider; may fail (missing Secret, bad settings). */
  build(): Promise<NetworkProvider>;
  /** True for errors after which the settings must be read again. */
  needsRebuild(err: unknown): boolean;
}

export function deferredNetworkProvider(options: DeferredProviderOptions): NetworkProvider {
  let built: Promise<NetworkProvider> | undefined;
  return wrapNetworkProvider(options.kind, async (_operation, call) => {
    const current = (built ??= options.build());
    try {
      return await call(await current);
    } catch (err) {
      // A failed build is never kept; a built provider only until its settings prove wrong.
      const buildFailed = await current.then(() => false, () => true);
      if (built === current && (buildFailed || options.needsRebuild(err))) built = undefined;
      throw err;
    }
  });
}
