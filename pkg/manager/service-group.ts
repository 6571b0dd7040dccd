// What the process runs whether it leads or not (the HTTP server, the event broadcaster, the
// informers): started in the order added, stopped in the reverse order, so that nothing is
// stopped while something started after it may still use it.
import type { Logger } from "../log/logger.ts";

export interface Service {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

export class ServiceGroup {
  private readonly started: Service[] = [];

  constructor(private readonly logger: Logger) {}

  async start(service: Service): Promise<void> {
    await service.start();
    this.started.push(service);
  }

  /** Stops every started service, last first; a failing stop is logged and the rest still stop. */
  async stopAll(): Promise<void> {
    for (let service = this.started.pop(); service; service = this.started.pop()) {
      try {
        await service.stop();
      } catch (err) {
        this.logger.warn({ err, service: service.name }, "stopping a service failed");
      }
    }
  }
}
