/** Where the benchmarks find the project, its data and their scratch space. */
import path from 'node:path';

/** The project root (the folder holding package.json), whatever the working directory. */
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

export const benchDir = path.join(projectRoot, 'bench');

/** Temporary files (git-ignored): generated inputs, profiles, quick-run reports. */
export const workDir = path.join(benchDir, '.work');
