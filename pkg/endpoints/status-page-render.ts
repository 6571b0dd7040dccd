// The status page's content, rendered from a snapshot. The server renders the first view with
// it, and the page's script renders every refresh with the very same function, sent to the
// browser as its source text (Function.prototype.toString). So it must stay self-contained:
// no imports used at run time and no names from outside its own body, only the snapshot and
// the browser's and the runtimes' common built-ins.
import type { InformerShardStatus, StatusSnapshot } from "../status/status-snapshot.ts";

export function renderStatus(snapshot: StatusSnapshot): string {
  const esc = (value: unknown): string =>
    String(value).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
  const now = snapshot.generatedAt;
  const ago = (at: number | undefined): string => {
    if (at === undefined) return "—";
    const seconds = Math.max(0, Math.round((now - at) / 1000));
    const text =
      seconds < 60 ? `${seconds}s` : seconds < 3600 ? `${Math.floor(seconds / 60)}m ${seconds % 60}s` : `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
    return `<time datetime="${new Date(at).toISOString()}" title="${new Date(at).toISOString()}">${text} ago</time>`;
  };
  const duration = (seconds: number | undefined): string => {
    if (seconds === undefined) return "—";
    return seconds < 1 ? `${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 0)} ms` : `${seconds.toFixed(2)} s`;
  };
  const count = (value: number | undefined): string => (value === undefined ? "—" : String(value));
  const cell = (field: string, content: string, className = ""): string =>
    `<td data-field="${field}"${className ? ` class="${className}"` : ""}>${content}</td>`;
  const table = (headings: string[], rows: string[], empty: string): string =>
    rows.length === 0
      ? `<p class="empty">${esc(empty)}</p>`
      : `<table><thead><tr>${headings.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;

  const process = snapshot.process;
  const header = `<p class="process">
    <span>identity <b data-field="identity">${esc(process.identity)}</b></span>
    <span>${esc(process.version)}</span>
    <span>started ${ago(process.startedAt)}</span>
  </p>`;

  const ring = snapshot.shardRing;
  const election = snapshot.leaderElection;
  const leaderSection = ring
    ? `<section id="shard-ring"><h2>Shard ring <small>${esc(ring.ring)}</small></h2>
      <p class="leader">${
        ring.member ? `Member <b data-field="member">${esc(ring.member)}</b>` : '<b data-field="member" class="warn">not a member (joining again)</b>'
      } · holds <b data-field="held">${esc(ring.held)}</b> of ${esc(ring.slots)} slots${ring.draining > 0 ? `, handing ${esc(ring.draining)} over` : ""}${
        ring.cachedAhead > 0 ? `, caching <b data-field="cached-ahead">${esc(ring.cachedAhead)}</b> more ahead of silent members` : ""
      } · ${esc(
        ring.handovers.taken,
      )} taken, ${esc(ring.handovers.released)} released since start</p>
      ${table(
        ["member", "alive", "slots"],
        ring.members.map(
          (m) => `<tr data-member="${esc(m.name)}">${cell("name", `${esc(m.name)}${m.self ? ' <span class="badge ok">this process</span>' : ""}`)}${cell(
            "alive",
            m.silent ? "silent" : m.alive ? "yes" : "no",
            m.silent ? "warn" : m.alive ? "ok" : "bad",
          )}${cell("slots", count(m.slots), "num")}</tr>`,
        ),
        "no members seen",
      )}
      <p data-field="ranges"><b>Ranges held</b> (FNV-1a 64 of the namespace): ${ring.ranges.length > 0 ? ring.ranges.map(esc).join(", ") : "none"}</p>
      <p data-field="namespaces"><b>Namespaces acted on here</b>: ${ring.namespaces.length > 0 ? ring.namespaces.map(esc).join(", ") : "none cached"}</p></section>`
    : election
    ? `<section id="leader-election"><h2>Leader election <small>Lease ${esc(election.lease)}</small></h2>
      <p class="leader">${
        election.holder
          ? `Leader: <b data-field="leader">${esc(election.holder)}</b>${election.leading ? ' <span class="badge ok">this process</span>' : ' <span class="badge">another process</span>'}
             since ${ago(election.holderSince)}, last renewed ${ago(election.lastRenewal)}`
          : '<b data-field="leader" class="warn">no leader</b>'
      } · ${esc(election.leaseTransitions)} transitions</p>
      ${table(
        ["candidate", "role", "first seen holding", "last seen holding"],
        election.candidates.map(
          (c) => `<tr data-candidate="${esc(c.identity)}">${cell("identity", esc(c.identity))}${cell(
            "role",
            [c.self ? "this process" : "", c.holding ? '<span class="badge ok">leader</span>' : ""].filter(Boolean).join(" "),
          )}${cell("first-seen", ago(c.firstSeenHolding))}${cell("last-seen", c.holding ? "now" : ago(c.lastSeenHolding))}</tr>`,
        ),
        "no candidates seen",
      )}
      <p class="hint">A Lease names only its holder: listed are this process and every holder seen since it started.</p></section>`
      : `<section id="leader-election"><h2>Leader election</h2><p>Off (--leader-elect=false): this process runs its controllers unconditionally.</p></section>`;

  const loopRows = snapshot.controllers.flatMap((controller) =>
    controller.loops.map((loop) => {
      const o = loop.outcomes;
      const failed = o.error + o.terminalError;
      return `<tr data-loop="${esc(loop.name)}">${cell("controller", esc(controller.name))}${cell("loop", esc(loop.name))}${cell(
        "state",
        esc(loop.state),
        loop.state === "running" ? "ok" : loop.state === "crashed" ? "bad" : "",
      )}${cell("depth", count(loop.depth), "num")}${cell("in-flight", `${loop.inFlight.length}/${loop.workers}`, "num")}${cell(
        "adds",
        count(loop.adds),
        "num",
      )}${cell("retries", count(loop.retries), "num")}${cell("reconciles", count(o.success + o.requeue + o.requeueAfter + failed), "num")}${cell(
        "errors",
        count(failed),
        failed > 0 ? "num bad" : "num",
      )}${cell("rate", `${loop.ratePerSecond.toFixed(2)}/s`, "num")}${cell("p50", duration(loop.p50Seconds), "num")}${cell(
        "p99",
        duration(loop.p99Seconds),
        "num",
      )}</tr>`;
    }),
  );
  const controllerDetails = snapshot.controllers
    .map((controller) => {
      const details = controller.details.map((d) => `<li><span>${esc(d.label)}</span> <b>${esc(d.value)}</b></li>`);
      const loops = controller.loops.map((loop) => {
        const errors = loop.lastErrors.map(
          (e) => `<li class="${e.terminal ? "bad" : "warn"}">${ago(e.at)} <code>${esc(e.key)}</code>: ${esc(e.message)}${e.terminal ? " (not retried)" : ""}</li>`,
        );
        const inFlight = loop.inFlight.map((k) => `<li><code>${esc(k.key)}</code> for ${duration(k.seconds)}</li>`);
        const slowest = loop.slowest ? `<li>slowest of the last ${loop.sampleCount}: <code>${esc(loop.slowest.key)}</code> ${duration(loop.slowest.seconds)}</li>` : "";
        if (errors.length === 0 && inFlight.length === 0 && !slowest) return "";
        const heading = loop.name === controller.name ? "" : `<h4>${esc(loop.name)}</h4>`;
        return `<div data-loop-details="${esc(loop.name)}">${heading}<ul>${slowest}${inFlight.join("")}</ul>${
          errors.length ? `<h5>Last errors</h5><ul class="errors">${errors.join("")}</ul>` : ""
        }</div>`;
      });
      if (details.length === 0 && loops.every((l) => l === "")) return "";
      return `<details data-controller="${esc(controller.name)}" open><summary>${esc(controller.name)}</summary>${
        details.length ? `<ul class="facts">${details.join("")}</ul>` : ""
      }${loops.join("")}</details>`;
    })
    .join("");
  const controllersSection = `<section id="controllers"><h2>Controllers</h2>${table(
    ["controller", "loop", "state", "depth", "workers busy", "adds", "retries", "reconciles", "errors", "rate (1 min)", "p50", "p99"],
    loopRows,
    "No controllers yet (waiting for the API server).",
  )}${controllerDetails}</section>`;

  const synced = snapshot.informers.filter((i) => i.synced).length;
  const failing = snapshot.informers.filter((i) => i.lastError !== undefined).length;
  const informerSummary = snapshot.informers.length
    ? `<p class="${synced < snapshot.informers.length || failing ? "warn" : ""}">${snapshot.informers.length} informers · ${synced} synced · ${failing} failing</p>`
    : "";
  // A sharded informer says under its name how much of the namespaces it holds, and who filters them.
  const shardNote = (shard: InformerShardStatus | undefined): string =>
    shard === undefined
      ? ""
      : `<br><small data-field="shard" title="${esc(shard.ranges)}">shard ${(shard.fraction * 100).toFixed(1)}% · ${shard.serverFilters ? "API server filters" : "filtered here"} · ${shard.segments} segment${shard.segments === 1 ? "" : "s"}${shard.syncedRanges === shard.ranges ? "" : " · listing"}</small>`;
  const informersSection = `<section id="informers"><h2>Informers</h2>${informerSummary}${table(
    ["informer", "synced", "objects", "resourceVersion", "lists", "relists", "watches", "errors", "handler errors", "last error"],
    snapshot.informers.map(
      (i) =>
        `<tr data-informer="${esc(i.name)}">${cell("name", esc(i.name) + shardNote(i.shard))}${cell("synced", i.synced ? "yes" : "no", i.synced ? "ok" : "warn")}${cell(
          "objects",
          count(i.objects),
          "num",
        )}${cell("resource-version", esc(i.resourceVersion || "—"), "num")}${cell("lists", count(i.lists), "num")}${cell("relists", count(i.relists), "num")}${cell(
          "watches",
          count(i.watches),
          "num",
        )}${cell("errors", count(i.errors), i.errors > 0 ? "num warn" : "num")}${cell("handler-errors", count(i.handlerErrors), i.handlerErrors > 0 ? "num bad" : "num")}${cell(
          "last-error",
          esc(i.lastError ?? ""),
          "bad",
        )}</tr>`,
    ),
    "No informers yet (waiting for the API server).",
  )}</section>`;

  const tally = snapshot.eventCounts;
  const drops = Object.entries(tally.dropped).filter(([, n]) => n > 0);
  const dropped = drops.reduce((sum, [, n]) => sum + n, 0);
  const eventCounts =
    tally.written.create + tally.written.series + tally.aggregated + dropped === 0
      ? ""
      : `<p class="${dropped > 0 ? "warn" : ""}">written: <b data-field="created">${tally.written.create}</b> new, <b data-field="series">${tally.written.series}</b> series updates · <b data-field="aggregated">${tally.aggregated}</b> repeats folded into a series · <b data-field="dropped">${dropped}</b> dropped${
          drops.length ? ` (${drops.map(([reason, n]) => `${esc(reason)} ${n}`).join(", ")})` : ""
        }</p>`;
  const eventsSection = `<section id="events"><h2>Recent Events</h2>${eventCounts}${table(
    ["when", "type", "reason", "object", "note", "count", "from"],
    snapshot.events.map(
      (e) =>
        `<tr>${cell("at", ago(e.at))}${cell("type", esc(e.type), e.type === "Warning" ? "warn" : "")}${cell("reason", esc(e.reason))}${cell(
          "regarding",
          esc(e.regarding),
        )}${cell("note", esc(e.note))}${cell("count", count(e.count), "num")}${cell("from", esc(e.reportingController))}</tr>`,
    ),
    "No Events recorded since start.",
  )}</section>`;

  // Informers last: there are dozens (the garbage collector watches every resource), and they rarely need a look.
  return header + leaderSection + controllersSection + eventsSection + informersSection;
}
