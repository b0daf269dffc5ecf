import { describe, expect, it } from 'vitest';
import {
  diffKeys,
  keysOfSubscriptions,
  subscriptionsOfKeys,
  unknownSubscriptionDetails,
} from './subscriptions.ts';

describe('subscriptions', () => {
  describe('keysOfSubscriptions', () => {
    it('turns vendors and products into sorted, distinct vendor keys', () => {
      expect(
        keysOfSubscriptions({
          vendors: ['tukaani', 'google', 'google'],
          products: { debian: ['debian_linux'] },
        }),
      ).toEqual(['debian$PRODUCT$debian_linux', 'google', 'tukaani']);
    });

    it('takes a missing field as empty', () => {
      expect(keysOfSubscriptions({})).toEqual([]);
      expect(keysOfSubscriptions({ products: { google: [] } })).toEqual([]);
    });
  });

  describe('subscriptionsOfKeys', () => {
    it('is the inverse, names sorted, vendors without products left out of products', () => {
      expect(
        subscriptionsOfKeys(['tukaani', 'mozilla$PRODUCT$thunderbird', 'google', 'mozilla$PRODUCT$firefox']),
      ).toEqual({ vendors: ['google', 'tukaani'], products: { mozilla: ['firefox', 'thunderbird'] } });
      expect(subscriptionsOfKeys([])).toEqual({ vendors: [], products: {} });
    });
  });

  describe('diffKeys', () => {
    it('lists what was added and what was removed', () => {
      expect(diffKeys(['a', 'b', 'c'], ['c', 'd', 'a'])).toEqual({ added: ['d'], removed: ['b'] });
    });
  });

  describe('unknownSubscriptionDetails', () => {
    const known = new Set(['google', 'google$PRODUCT$chrome', 'tukaani']);

    it('names each unknown vendor once, under vendors', () => {
      expect(unknownSubscriptionDetails({ vendors: ['google', 'acme', 'acme', 'initech'] }, known)).toEqual({
        vendors: ["Vendor does not exist: 'acme'.", "Vendor does not exist: 'initech'."],
      });
    });

    it('names unknown products, or their vendor when it is unknown, under products', () => {
      expect(
        unknownSubscriptionDetails(
          { products: { google: ['chrome', 'glass'], acme: ['anvil', 'rocket'] } },
          known,
        ),
      ).toEqual({
        products: ["Product does not exist: google / 'glass'.", "Vendor does not exist: 'acme'."],
      });
    });

    it('is empty when everything is known', () => {
      expect(
        unknownSubscriptionDetails({ vendors: ['tukaani'], products: { google: ['chrome'] } }, known),
      ).toEqual({});
    });
  });
});
