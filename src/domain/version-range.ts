/**
 * Version comparison for inventory matching (docs/catalog.md "Matching an inventory",
 * docs/inventories.md "Version schemes"). A CNA range's `versionType` picks the scheme: `semver` and
 * `npm` are compared by the `semver` package, `python` / `pypi` by `@renovatebot/pep440`, `debian` /
 * `deb` and `rpm` by epoch, upstream version and revision; every other type (`maven`, `custom`,
 * `generic`, none, NVD's bounds, which carry no type) and any version a scheme cannot read use the
 * generic comparator below, and a match says which was used (`SchemeComparer.used`). `git` is text.
 *
 * The generic comparator:
 * A version is read as a run of tokens: numbers (compared as numbers), and words. A word is a
 * pre-release (before the release it qualifies: `2.0-beta9` < `2.0-rc1` < `2.0`) when it is one of
 * the usual markers (`dev`, `snapshot`, `alpha`, `beta`, `milestone`, `rc`, `cr`, `pre`, `preview`, `ea`,
 * or `a`/`b`/`c`/`m` followed by a number, as in Python's `1.0a1`, or Debian's `~`); any other word is a
 * post-release suffix (OpenSSL's `1.0.1f` > `1.0.1`, OpenSSH's `9.6p1` > `9.6`). `final`, `ga` and
 * `release` say nothing (`1.0.Final` = `1.0`). Missing numbers are zeros (`1.0` = `1.0.0`), a leading
 * `v` and an epoch (`1:`) are dropped, and case is ignored.
 */
import * as pep440 from '@renovatebot/pep440';
import semver from 'semver';

type Token =
  | { kind: 'num'; value: bigint }
  | { kind: 'pre'; rank: number; word: string }
  | { kind: 'post'; word: string };

const PRE_RANK: Record<string, number> = {
  '~': -1,
  dev: 0,
  snapshot: 0,
  alpha: 1,
  a: 1,
  ea: 1,
  beta: 2,
  b: 2,
  milestone: 3,
  m: 3,
  rc: 4,
  cr: 4,
  c: 4,
  pre: 4,
  preview: 4,
};
const SILENT = new Set(['final', 'ga', 'release']);
const SINGLE_LETTER_PRE = new Set(['a', 'b', 'c', 'm']);

/** Versions already read, as a call compares the same bounds for many components. */
const tokenCache = new Map<string, Token[]>();
const TOKEN_CACHE_LIMIT = 100_000;

function tokens(version: string): Token[] {
  let cached = tokenCache.get(version);
  if (!cached) {
    cached = readTokens(version);
    if (tokenCache.size >= TOKEN_CACHE_LIMIT) tokenCache.clear();
    tokenCache.set(version, cached);
  }
  return cached;
}

function readTokens(version: string): Token[] {
  const text = version
    .trim()
    .toLowerCase()
    .replace(/^v(?=\d)/, '')
    .replace(/^\d+:/, '');
  const out: Token[] = [];
  const re = /(\d+)|([a-z]+)|(~)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== undefined) out.push({ kind: 'num', value: BigInt(m[1]) });
    else if (m[3] !== undefined) out.push({ kind: 'pre', rank: PRE_RANK['~']!, word: '~' });
    else {
      const word = m[2]!;
      if (SILENT.has(word)) continue;
      const followedByDigit = /\d/.test(text[re.lastIndex] ?? '');
      const single = SINGLE_LETTER_PRE.has(word);
      if ((single && followedByDigit) || (!single && PRE_RANK[word] !== undefined))
        out.push({ kind: 'pre', rank: PRE_RANK[word]!, word });
      else out.push({ kind: 'post', word });
    }
  }
  return out;
}

const ZERO: Token = { kind: 'num', value: 0n };

function compareTokens(a: Token | undefined, b: Token | undefined): number {
  if (!a && !b) return 0;
  if (!a) return -compareTokens(b, a);
  if (!b) {
    // Nothing more on the other side: a number compares with zero, a pre-release comes before the
    // release, a post-release suffix after it.
    if (a.kind === 'num') return compareTokens(a, ZERO);
    return a.kind === 'pre' ? -1 : 1;
  }
  if (a.kind === 'num' && b.kind === 'num') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  if (a.kind === 'num') return 1;
  if (b.kind === 'num') return -1;
  if (a.kind === 'pre' && b.kind === 'pre')
    return a.rank - b.rank || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);
  if (a.kind === 'pre') return -1;
  if (b.kind === 'pre') return 1;
  return a.word < b.word ? -1 : a.word > b.word ? 1 : 0;
}

/** Negative, zero or positive as `a` is before, the same as, or after `b`. Never throws. */
export function compareVersions(a: string, b: string): number {
  const ta = tokens(a);
  const tb = tokens(b);
  for (let i = 0; i < Math.max(ta.length, tb.length); i++) {
    const c = compareTokens(ta[i], tb[i]);
    if (c !== 0) return c < 0 ? -1 : 1;
  }
  return 0;
}

/** Whether a text can be compared as a version at all: it holds a number. */
export function isComparableVersion(version: string): boolean {
  return /\d/.test(version);
}

/** An NVD-style range; absent bounds are open. */
export interface VersionBounds {
  startIncluding?: string | undefined;
  startExcluding?: string | undefined;
  endIncluding?: string | undefined;
  endExcluding?: string | undefined;
}

/** Whether `version` lies within the bounds (every bound given must hold). */
export function withinBounds(version: string, b: VersionBounds): boolean {
  if (b.startIncluding !== undefined && compareVersions(version, b.startIncluding) < 0) return false;
  if (b.startExcluding !== undefined && compareVersions(version, b.startExcluding) <= 0) return false;
  if (b.endIncluding !== undefined && compareVersions(version, b.endIncluding) > 0) return false;
  if (b.endExcluding !== undefined && compareVersions(version, b.endExcluding) >= 0) return false;
  return true;
}

/** How a range's versions were compared. */
export type VersionComparison = 'semver' | 'pep440' | 'debian' | 'rpm' | 'generic';

/** The scheme a CVE 5 `versionType` names; anything else (maven, custom, generic, none) is generic. */
export function schemeOf(versionType: string | undefined): VersionComparison {
  switch ((versionType ?? '').trim().toLowerCase()) {
    case 'semver':
    case 'npm':
      return 'semver';
    case 'python':
    case 'pypi':
    case 'pep440':
      return 'pep440';
    case 'debian':
    case 'deb':
    case 'dpkg':
      return 'debian';
    case 'rpm':
      return 'rpm';
    default:
      return 'generic';
  }
}

/** A semantic version, padded where a range writes `2.0` or `2.0-beta9`; null when it is not one. */
function semverOf(version: string): semver.SemVer | null {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?([-+][0-9A-Za-z.+-]*)?$/.exec(version.trim());
  if (!m) return null;
  return semver.parse(`${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}${m[4] ?? ''}`);
}

/** Debian's and RPM's `[epoch:]upstream[-revision]`: epochs compared as numbers (none is 0), then each part. */
function comparePackageVersions(a: string, b: string): number {
  const split = (v: string) => {
    const m = /^\s*(?:(\d+):)?(.*?)(?:-([^-]*))?\s*$/.exec(v)!;
    return { epoch: BigInt(m[1] ?? 0), upstream: m[2]!, revision: m[3] ?? '' };
  };
  const x = split(a);
  const y = split(b);
  if (x.epoch !== y.epoch) return x.epoch < y.epoch ? -1 : 1;
  return compareVersions(x.upstream, y.upstream) || compareVersions(x.revision, y.revision);
}

/**
 * Compares versions under one scheme, falling back to the generic comparator for a pair the scheme
 * cannot read; `used` is then `generic`, so a finding says how its range was read. Never throws.
 */
export class SchemeComparer {
  used: VersionComparison;

  constructor(readonly scheme: VersionComparison) {
    this.used = scheme;
  }

  compare(a: string, b: string): number {
    switch (this.scheme) {
      case 'semver': {
        const x = semverOf(a);
        const y = semverOf(b);
        if (x && y) return semver.compare(x, y);
        break;
      }
      case 'pep440':
        if (pep440.valid(a) && pep440.valid(b)) return Math.sign(pep440.compare(a, b));
        break;
      case 'debian':
      case 'rpm':
        return comparePackageVersions(a, b);
      case 'generic':
        return compareVersions(a, b);
    }
    this.used = 'generic';
    return compareVersions(a, b);
  }
}
