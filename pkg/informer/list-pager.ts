// Reads a whole collection through a ListerWatcher, one page at a time (client-go's tools/pager).
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import { isResourceExpired } from "../kube/errors.ts";
import type { ListOptions, ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";

export interface ListResult<T> {
  items: T[];
  /** The collection's resourceVersion: the point a watch continues from. */
  resourceVersion: string;
  /** Number of LIST requests it took. */
  pages: number;
}

/**
 * Lists everything, following `continue` tokens. If a token expires mid-list (410), starts
 * over with one unpaginated list at the original resourceVersion, as client-go's pager does.
 * `admit` turns each item into what is kept of it as soon as its page arrives, so a page's
 * decoded objects need not outlive it.
 */
export async function listAllPages<T extends KubeObject>(
  lw: ListerWatcher<T>,
  options: ListOptions,
  signal?: AbortSignal,
  admit: (item: T) => T = (item) => item,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let pages = 0;
  let request = options;
  for (;;) {
    pages++;
    let page;
    try {
      page = await lw.list(request, signal);
    } catch (err) {
      if (request.continue === undefined || !isResourceExpired(err)) throw err;
      const { limit: _limit, continue: _continue, ...unpaginated } = options;
      const full = await lw.list(unpaginated, signal);
      items.length = 0;
      await admitAll(full.items, admit, items);
      return { items, resourceVersion: full.metadata?.resourceVersion ?? "", pages: pages + 1 };
    }
    await admitAll(page.items, admit, items);
    const token = page.metadata?.continue;
    if (!token) return { items, resourceVersion: page.metadata?.resourceVersion ?? "", pages };
    // A continue token pins the snapshot itself; the server rejects a resourceVersion next to it.
    const { resourceVersion: _rv, resourceVersionMatch: _match, ...rest } = options;
    request = { ...rest, continue: token };
  }
}

/** Appends what `admit` keeps of each item, in time slices: an unpaged list may hold 100,000 items. */
async function admitAll<T>(page: readonly T[], admit: (item: T) => T, into: T[]): Promise<void> {
  const slicer = new TimeSlicer({ callsPerCheck: 32 });
  for (const item of page) {
    into.push(admit(item));
    if (slicer.due()) await slicer.yield();
  }
}
