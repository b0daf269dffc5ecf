/** What the numbers were measured on, for the results file. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from './paths.ts';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  pglite: string;
  commit: string;
  /** True when src/ had uncommitted changes: the numbers then describe a work in progress. */
  srcDirty: boolean;
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) return match[1].trim();
  } catch {
    // not Linux: fall back to what Node knows
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '';
  }
}

function packageVersion(name: string): string {
  try {
    const file = path.join(projectRoot, 'node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpuModel(),
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    pglite: packageVersion('@electric-sql/pglite'),
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    srcDirty: git(['status', '--porcelain', '--', 'src']) !== '',
  };
}

/** The 1, 5 and 15-minute load averages: `0.90 / 0.26 / 0.09`. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
}
