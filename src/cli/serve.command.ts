/**
 * `vulntrack serve`: the HTTP API and web UI, with an in-process job worker and scheduler. On the
 * embedded database it is the only process, so it also answers CLI commands over the control
 * socket; on first start with an empty catalog it loads the bundled sample in the background.
 */
import { getConfig } from '../config.ts';
import { buildApp } from '../server.ts';
import { createLogger, createServices, startJobs } from '../main.ts';
import { loadSample, SampleCancelled } from '../services/sample.service.ts';
import { firstSyncNotice } from '../sync/first-sync.ts';
import { startControlSocket } from './control-socket.ts';
import { classifyError } from './run-command.ts';
import { CANCELLABLE_COMMANDS, serviceCommands } from './service-commands.ts';
import { EXIT } from './output.ts';

/** How long a stop may take before the process exits anyway. */
const STOP_DEADLINE_MS = 20_000;

export async function serveCommand(): Promise<number> {
  const config = getConfig();
  const logger = createLogger(config);
  const services = await createServices(config);
  const app = await buildApp({ services, logger });
  // The in-process worker and scheduler (on the embedded database, the only one there can be).
  const jobs = await startJobs(services, logger);
  let stopControl: (() => Promise<void>) | undefined;
  if (services.database.kind === 'embedded') {
    stopControl = await startControlSocket(
      config.dataDir,
      async (request, progress, signal) => {
        const run = serviceCommands[request.command];
        if (!run) throw new Error(`unknown command ${request.command}`);
        const command = request.command;
        signal.addEventListener('abort', () => {
          const reason = signal.reason instanceof Error ? signal.reason.message : 'cancelled';
          if (CANCELLABLE_COMMANDS.has(command))
            logger.info(`CLI ${command} ${reason}: stopping it at its next batch boundary`);
        });
        const result = await run(services, request.args, progress, signal);
        if (result.exitCode === EXIT.cancelled) logger.info(`CLI ${command} cancelled: ${result.text}`);
        return result;
      },
      classifyError,
    );
  }

  let stopping = false;
  // The sample's load in the background (first start): a stop cancels it and waits for its rollback.
  const sampleAbort = new AbortController();
  let sampleLoad: Promise<unknown> = Promise.resolve();
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    // Whatever hangs (a database that does not answer), the process ends: a service manager's stop
    // must stop it, and a second start must not find this one still holding the data directory.
    setTimeout(() => {
      logger.error(`not stopped after ${STOP_DEADLINE_MS / 1000} s: exiting now`);
      process.exit(EXIT.failure);
    }, STOP_DEADLINE_MS).unref();
    sampleAbort.abort();
    await sampleLoad;
    await app.close();
    await stopControl?.();
    await jobs.stop();
    await services.close();
    process.exit(EXIT.ok);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  logger.info(
    `vulntrack listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port} (${services.database.kind} database)`,
  );

  // No user yet: a one-time link to the page that creates the first administrator.
  const setup = await services.webSessions.firstAdminLink();
  if (setup) {
    const base = config.baseUrl ?? `http://localhost:${config.port}`;
    logger.info(
      `no user yet: create the first administrator at ${base}/setup/${setup} (this link works once, for 24 hours)`,
    );
  }

  const readiness = await services.health.readiness();
  const firstSync = firstSyncNotice(
    readiness.sync.filter((s) => s.last_success_at === null).map((s) => s.source),
    config.sync,
  );
  if (firstSync) logger.info(firstSync);

  if (config.loadSample && readiness.catalog.cves === 0) {
    services.health.sampleState = 'loading';
    sampleLoad = loadSample(services.imports, (m) => logger.info(m), sampleAbort.signal)
      .then((reports) => {
        services.health.sampleState = 'loaded';
        for (const r of reports) logger.info({ counts: r.counts }, `sample ${r.source} loaded`);
        // The statistics computed at start counted an empty catalog: count the sample now, not at the next hour.
        return services.statistics.compute();
      })
      .catch((err: Error) => {
        if (err instanceof SampleCancelled) {
          logger.info('loading the sample catalog stopped: the next start loads it again');
          return;
        }
        services.health.sampleState = 'failed';
        logger.error({ err }, 'loading the sample catalog failed');
      });
  } else if (!config.loadSample) {
    services.health.sampleState = 'disabled';
  }
  // Runs until a signal stops it.
  return new Promise<number>(() => {});
}
