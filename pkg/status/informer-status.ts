// One informer as the status page shows it: is its cache filled, how big, how recent, and how
// often it had to list again or failed.
import { errorMessage } from "../errors/expected-error.ts";
import type { SharedIndexInformer } from "../informer/shared-informer.ts";
import type { InformerStatus } from "./status-snapshot.ts";

export function informerStatus(informer: SharedIndexInformer): InformerStatus {
  const { lists, relists, watches, errors, handlerErrors } = informer.counters;
  const lastError = informer.lastListError;
  return {
    name: informer.name,
    synced: informer.hasSynced(),
    objects: informer.getIndexer().size,
    resourceVersion: informer.lastSyncResourceVersion,
    lists,
    relists,
    watches,
    errors,
    handlerErrors,
    lastError: lastError === undefined ? undefined : errorMessage(lastError),
  };
}
