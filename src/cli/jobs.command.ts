/** `vulntrack jobs` and `vulntrack jobs retry`: the job queue, and a failed job queued again. */
import type { JobsOverview, JobSummary } from '../services/job.service.ts';
import { serviceCommand } from './command.ts';
import { EXIT, formatNumber, UsageError } from './output.ts';

function jobLine(j: JobSummary): string {
  const payload = Object.keys(j.payload).length ? ` ${JSON.stringify(j.payload)}` : '';
  const head = `  #${j.id} ${j.name}${payload}, attempt ${j.attempts}/${j.max_attempts}`;
  switch (j.status) {
    case 'running':
      return `${head} on ${j.locked_by ?? '?'} since ${j.started_at ?? '?'}, lease until ${j.lease_until ?? '?'}`;
    case 'pending':
      return `${head} failed, next attempt at ${j.run_at}: ${j.last_error ?? ''}`;
    case 'failed':
    case 'dead':
    case 'succeeded':
      return `${head} ${j.status} at ${j.finished_at ?? '?'}: ${j.last_error ?? ''}`;
  }
}

function jobsText(o: JobsOverview): string {
  const c = o.counts;
  const waiting = o.oldest_pending_seconds === null ? '' : ` (oldest waiting ${o.oldest_pending_seconds} s)`;
  const lines = [
    `jobs: ${formatNumber(c.pending)} pending${waiting}, ${formatNumber(c.running)} running, ` +
      `${formatNumber(c.succeeded)} succeeded, ${formatNumber(c.failed)} failed, ${formatNumber(c.dead)} dead`,
  ];
  const section = (title: string, jobs: JobSummary[]) => {
    if (jobs.length) lines.push(`${title}:`, ...jobs.map(jobLine));
  };
  section('running', o.running);
  section('waiting to retry', o.retrying);
  section('failed (no retry)', o.failed);
  section('dead (all attempts failed; `vulntrack jobs retry <id>` queues one again)', o.dead);
  return lines.join('\n');
}

export const jobsStatus = serviceCommand({
  name: 'jobs',
  description: 'the job queue: counts by status, running jobs, retries, failed and dead jobs',
  args: () => ({}),
  async run(services) {
    const overview = await services.jobs.overview();
    return { text: jobsText(overview), data: overview, exitCode: EXIT.ok };
  },
});

export const jobsRetry = serviceCommand({
  name: 'jobs retry',
  description: 'queue a dead or failed job again, with fresh attempts',
  arguments: [{ name: '<id>', description: 'the job id' }],
  args: (id: string) => {
    const n = Number(id);
    if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`"${id}" is not a job id`);
    return { id: n };
  },
  async run(services, { id }) {
    if (!(await services.jobs.retry(id))) throw new UsageError(`no dead or failed job #${id}`);
    return { text: `job #${id} queued again`, data: { id, status: 'pending' }, exitCode: EXIT.ok };
  },
});
