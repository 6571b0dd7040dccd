// A real OpenStack Neutron API server for the network controller's tests: Debian's
// neutron-server (Zed) with auth_strategy = noauth, two API workers, ML2 without mechanism drivers or agents,
// no message queue, and a private MariaDB,
// all on free 127.0.0.1 ports with their state in one temp folder. test/setup.sh installs the
// packages. Processes die with the test process; stop() ends them by PID and removes the folder.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DaemonProcess, hasExited, logTail, spawnDaemon, stopDaemon } from "../controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "../controlplane/free-ports.ts";
import { createOwnedTempDir, removeOwnedTempDir } from "../controlplane/owned-temp-dir.ts";

const requiredBinaries = ["/usr/bin/neutron-server", "/usr/bin/neutron-db-manage", "/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db", "/usr/bin/mariadb"];
const START_TIMEOUT_MS = 180_000;

export interface NeutronNetwork {
  id: string;
  name: string;
  tags: string[];
  project_id: string;
}

export interface NeutronSubnet {
  id: string;
  network_id: string;
  cidr: string;
  gateway_ip: string | null;
  allocation_pools: { start: string; end: string }[];
  tags: string[];
}

export class NeutronServer {
  readonly endpoint: string;
  #mariadb: DaemonProcess | undefined;
  #neutron: DaemonProcess | undefined;
  #stopped = false;

  private constructor(
    readonly dir: string,
    private readonly ports: { neutron: number; mariadb: number },
  ) {
    this.endpoint = `http://127.0.0.1:${ports.neutron}`;
  }

  /** Installs a fresh database and starts MariaDB and neutron-server; about 15–60 s on two cores. */
  static async start(): Promise<NeutronServer> {
    const missing = requiredBinaries.filter((path) => !existsSync(path));
    if (missing.length > 0) throw new Error(`Neutron test server: ${missing.join(", ")} not installed; run test/setup.sh`);
    const dir = createOwnedTempDir();
    // mariadbd drops to the mysql user, which must be able to reach its data folder.
    chmodSync(dir, 0o755);
    const server = new NeutronServer(dir, await freeLoopbackPorts(["neutron", "mariadb"] as const));
    try {
      await server.#startMariadb();
      await server.#createDatabase();
      server.#writeConfig();
      await run(["neutron-db-manage", ...server.#configArgs(), "upgrade", "heads"], join(dir, "log", "db-manage.log"));
      await server.startNeutron();
    } catch (error) {
      const logs = server.#logTails();
      await server.stop();
      throw new Error(`Neutron test server failed to start: ${error instanceof Error ? error.message : String(error)}\n${logs}`, { cause: error });
    }
    return server;
  }

  /** (Re)starts neutron-server on the same port and database; resolves once GET /v2.0/networks answers 200. */
  async startNeutron(): Promise<void> {
    if (this.#neutron && !hasExited(this.#neutron)) throw new Error("neutron-server is already running");
    const logPath = join(this.dir, "log", "neutron-stdout.log");
    const neutron = spawnDaemon(["/usr/bin/neutron-server", ...this.#configArgs()], logPath);
    this.#neutron = neutron;
    await pollUntil("neutron-server GET /v2.0/networks", () => (hasExited(neutron) ? `neutron-server exited with ${neutron.exitCode}` : undefined), async () => {
      const response = await fetch(`${this.endpoint}/v2.0/networks`);
      await response.arrayBuffer();
      return response.status === 200;
    });
  }

  /** Stops neutron-server (its workers end with it); MariaDB keeps the data. */
  async stopNeutron(): Promise<void> {
    if (this.#neutron) await stopDaemon(this.#neutron, "SIGTERM", 15_000);
  }

  /** GET on the v2.0 API, e.g. "networks?tags=x"; throws on a non-2xx answer. */
  async get<T>(path: string): Promise<T> {
    const response = await fetch(`${this.endpoint}/v2.0/${path}`);
    if (!response.ok) throw new Error(`Neutron GET ${path}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** Deletes a network as an administrator would, behind the controller's back. */
  async deleteNetwork(id: string): Promise<void> {
    const response = await fetch(`${this.endpoint}/v2.0/networks/${id}`, { method: "DELETE" });
    if (response.status !== 204) throw new Error(`Neutron DELETE networks/${id}: HTTP ${response.status} ${await response.text()}`);
  }

  async networks(query = ""): Promise<NeutronNetwork[]> {
    return (await this.get<{ networks: NeutronNetwork[] }>(`networks${query ? `?${query}` : ""}`)).networks;
  }

  async subnets(query = ""): Promise<NeutronSubnet[]> {
    return (await this.get<{ subnets: NeutronSubnet[] }>(`subnets${query ? `?${query}` : ""}`)).subnets;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.stopNeutron();
    if (this.#mariadb) await stopDaemon(this.#mariadb, "SIGTERM", 15_000);
    removeOwnedTempDir(this.dir);
  }

  async #startMariadb(): Promise<void> {
    const { dir } = this;
    for (const sub of ["mysql", "run", "log", "etc", "state/lock"]) mkdirSync(join(dir, sub), { recursive: true });
    await run(
      ["mariadb-install-db", "--user=mysql", `--datadir=${join(dir, "mysql")}`, "--auth-root-authentication-method=socket", "--skip-test-db"],
      join(dir, "log", "mariadb-install.log"),
    );
    await run(["chown", "-R", "mysql:mysql", join(dir, "mysql"), join(dir, "run")], join(dir, "log", "mariadb-install.log"));
    const mariadb = spawnDaemon(
      [
        "/usr/sbin/mariadbd",
        "--no-defaults",
        "--user=mysql",
        `--datadir=${join(dir, "mysql")}`,
        "--bind-address=127.0.0.1",
        `--port=${this.ports.mariadb}`,
        `--socket=${this.#socket}`,
        `--pid-file=${join(dir, "run", "mysqld.pid")}`,
        "--innodb-buffer-pool-size=32M",
        "--skip-log-bin",
        // Test data is disposable: no fsync per commit.
        "--innodb-flush-log-at-trx-commit=0",
      ],
      join(dir, "log", "mariadb.log"),
    );
    this.#mariadb = mariadb;
    await pollUntil("MariaDB", () => (hasExited(mariadb) ? `mariadbd exited with ${mariadb.exitCode}` : undefined), async () => {
      const child = Bun.spawn(["mariadb", `--socket=${this.#socket}`, "-e", "select 1"], { stdout: "ignore", stderr: "ignore" });
      return (await child.exited) === 0;
    });
  }

  async #createDatabase(): Promise<void> {
    const sql = `CREATE DATABASE neutron CHARACTER SET utf8mb4;
CREATE USER 'neutron'@'127.0.0.1' IDENTIFIED BY 'neutronpw';
GRANT ALL ON neutron.* TO 'neutron'@'127.0.0.1';
FLUSH PRIVILEGES;`;
    await run(["mariadb", `--socket=${this.#socket}`], join(this.dir, "log", "mariadb-install.log"), sql);
  }

  // Two API worker processes, not Neutron's single-process mode, whose green threads share one
  // core: 100 networks created and deleted at once beside resync reads took a half to a third of
  // the time with two (workers end with the parent, which stopNeutron stops). No quotas: no test is
  // about them, and at the default 100 networks a project, one network an earlier failed test left
  // kept the 100-Network test waiting out its 10 minutes (and its rerun as long).
  #writeConfig(): void {
    const { dir } = this;
    writeFileSync(
      join(dir, "etc", "neutron.conf"),
      `[DEFAULT]
core_plugin = ml2
service_plugins =
auth_strategy = noauth
bind_host = 127.0.0.1
bind_port = ${this.ports.neutron}
api_workers = 2
rpc_workers = 0
rpc_state_report_workers = 0
transport_url = fake://
api_paste_config = /etc/neutron/api-paste.ini
state_path = ${join(dir, "state")}
log_dir = ${join(dir, "log")}
log_file = neutron-server.log
debug = false
dhcp_agent_notification = false
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false

[database]
connection = mysql+pymysql://neutron:neutronpw@127.0.0.1:${this.ports.mariadb}/neutron

[oslo_concurrency]
lock_path = ${join(dir, "state", "lock")}

[quotas]
quota_network = -1
quota_subnet = -1
`,
    );
    writeFileSync(
      join(dir, "etc", "ml2_conf.ini"),
      `[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vxlan
mechanism_drivers =
extension_drivers =

[ml2_type_vxlan]
vni_ranges = 1:1000
`,
    );
  }

  #configArgs(): string[] {
    return ["--config-file", join(this.dir, "etc", "neutron.conf"), "--config-file", join(this.dir, "etc", "ml2_conf.ini")];
  }

  get #socket(): string {
    return join(this.dir, "run", "mysqld.sock");
  }

  #logTails(): string {
    return ["mariadb-install.log", "mariadb.log", "db-manage.log", "neutron-stdout.log", "neutron-server.log"]
      .map((name) => `--- last lines of ${name} ---\n${logTail(join(this.dir, "log", name), 20)}`)
      .join("\n");
  }
}

/** Runs a set-up command to completion with its output appended to `logPath`; throws on a non-zero exit. */
async function run(command: string[], logPath: string, stdin?: string): Promise<void> {
  const logFd = openSync(logPath, "a");
  const child = Bun.spawn(command, { stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: logFd, stderr: "pipe" });
  closeSync(logFd);
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited with ${code}: ${stderr.trim().split("\n").slice(-5).join(" | ")}`);
}

async function pollUntil(what: string, failure: () => string | undefined, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const failed = failure();
    if (failed) throw new Error(`${failed} while waiting for ${what}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${START_TIMEOUT_MS} ms waiting for ${what}`);
    await Bun.sleep(200);
  }
}
