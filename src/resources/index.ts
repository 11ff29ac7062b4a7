// Every handler of openapi.json, keyed by operationId. Boot fails if this and the document disagree.
import { apiKeyPairHandlers } from './api-key-pairs/routes.js';
import { buyerHandlers } from './buyers/routes.js';
import { configurationHandlers } from './configuration.js';
import { deletionHandlers } from './deletions.js';
import { digitalWalletHandlers } from './digital-wallets/routes.js';
import { CursorCodec } from './gift-cards/cursor.js';
import { giftCardHandlers } from './gift-cards/routes.js';
import { paymentMethodHandlers } from './payment-methods/routes.js';
import { reportHandlers } from './reports/routes.js';
import { transactionHandlers } from './transactions/routes.js';
import type { HandlerMap } from './types.js';

export function apiHandlers(cursorSecret: string): HandlerMap {
  return {
    ...apiKeyPairHandlers,
    ...buyerHandlers,
    ...paymentMethodHandlers,
    ...giftCardHandlers(new CursorCodec(cursorSecret)),
    ...digitalWalletHandlers,
    ...transactionHandlers,
    ...deletionHandlers,
    ...configurationHandlers,
    ...reportHandlers,
  };
}
