import { describe, expect, it } from 'vitest';
import { localPath } from './session.ts';

describe('localPath', () => {
  it('keeps a path of this site, with its query and fragment', () => {
    expect(localPath('/cves?search=log4j#results')).toBe('/cves?search=log4j#results');
    expect(localPath('/org/acme/projects')).toBe('/org/acme/projects');
  });

  it.each([
    ['/\t/evil.example/phish'],
    ['/\n/evil.example'],
    ['/\r\n/evil.example'],
    ['/\\evil.example'],
    ['/\t\\evil.example'],
    ['//evil.example/x'],
    ['https://evil.example/'],
    ['javascript:alert(1)'],
    ['evil.example'],
    ['/ok\u0000'],
    [''],
  ])('refuses %j, which a browser could take off this site', (next) => {
    expect(localPath(next, '/home')).toBe('/home');
  });

  it('refuses what is not a string', () => {
    expect(localPath(undefined)).toBe('/');
    expect(localPath(['/a', '/b'])).toBe('/');
  });
});
