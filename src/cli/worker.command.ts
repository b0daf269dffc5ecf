/**
 * `vulntrack worker`: jobs and schedules only, no HTTP (scale-out on a PostgreSQL server). On the
 * embedded database `serve` already runs the worker and no second process may open the data dir.
 */
import { getConfig } from '../config.ts';
import { createLogger, createServices, startJobs } from '../main.ts';
import { EXIT, type Output } from './output.ts';

export async function workerCommand(out: Output): Promise<number> {
  const config = getConfig();
  if (!config.databaseUrl) {
    out.error(
      'the embedded database allows one process and `vulntrack serve` already runs the worker; set DATABASE_URL to a PostgreSQL server to run separate workers',
    );
    return EXIT.failure;
  }
  const logger = createLogger(config);
  const services = await createServices(config);
  const jobs = await startJobs(services, logger);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await jobs.stop();
    await services.close();
    process.exit(EXIT.ok);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Runs until a signal stops it.
  return new Promise<number>(() => {});
}
