// Every handler of openapi.json, keyed by operationId. Boot fails if this and the document disagree.
import { apiKeyPairHandlers } from './api-key-pairs/handlers.js';
import { buyerHandlers } from './buyers/handlers.js';
import { configurationHandlers } from './configuration.js';
import { deletionHandlers } from './deletions.js';
import { digitalWalletHandlers } from './digital-wallets/handlers.js';
import { CursorCodec } from './gift-cards/cursor.js';
import { giftCardHandlers } from './gift-cards/handlers.js';
import { paymentMethodHandlers } from './payment-methods/handlers.js';
import { reportHandlers } from './reports/handlers.js';
import { transactionHandlers } from './transactions/handlers.js';
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
