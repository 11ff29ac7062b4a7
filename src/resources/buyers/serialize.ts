import type { Address, BillingDetails, BuyerRecord } from '../../store/records.js';

/** Every address field, in the API's order, null where absent. (Written out: lists serialize it per item.) */
function addressOf(a: Partial<Address>): Address {
  return {
    city: a.city ?? null,
    country: a.country ?? null,
    postal_code: a.postal_code ?? null,
    state: a.state ?? null,
    state_code: a.state_code ?? null,
    house_number_or_name: a.house_number_or_name ?? null,
    line1: a.line1 ?? null,
    line2: a.line2 ?? null,
    organization: a.organization ?? null,
  };
}

/** Every billing field present, null where it has no value (clients require them all). */
export function normalizeBillingDetails(input: Partial<BillingDetails> | null | undefined): BillingDetails | null {
  if (!input) return null;
  return {
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    email_address: input.email_address ?? null,
    phone_number: input.phone_number ?? null,
    address: input.address ? addressOf(input.address) : null,
    tax_id: input.tax_id ? { value: input.tax_id.value, kind: input.tax_id.kind } : null,
  };
}

export function serializeBuyer(b: BuyerRecord) {
  return {
    type: 'buyer' as const,
    id: b.id,
    // Beyond the reference (which shows it on buyers nested in gift cards only): the official
    // clients require it on every buyer (docs/api-decisions.md).
    reconciliation_id: b.reconciliation_id,
    merchant_account_id: b.merchant_account_id,
    created_at: b.created_at,
    updated_at: b.updated_at,
    display_name: b.display_name,
    external_identifier: b.external_identifier,
    account_number: b.account_number,
    billing_details: normalizeBillingDetails(b.billing_details),
  };
}
