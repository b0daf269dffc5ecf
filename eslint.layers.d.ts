import type { Linter } from 'eslint';

/** The layer rules of eslint.layers.js (flat config objects). */
export declare const layerRules: Linter.Config[];
