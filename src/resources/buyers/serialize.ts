import type { Address, BillingDetails, BuyerRecord } from '../../store/records.js';

const ADDRESS_FIELDS = ['city', 'country', 'postal_code', 'state', 'state_code', 'house_number_or_name', 'line1', 'line2', 'organization'] as const;

/** Every billing field present, null where it has no value (clients require them all). */
export function normalizeBillingDetails(input: Partial<BillingDetails> | null | undefined): BillingDetails | null {
  if (!input) return null;
  const address = input.address ? (Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, input.address?.[f] ?? null])) as unknown as Address) : null;
  return {
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    email_address: input.email_address ?? null,
    phone_number: input.phone_number ?? null,
    address,
    tax_id: input.tax_id ? { value: input.tax_id.value, kind: input.tax_id.kind } : null,
  };
}

export function serializeBuyer(b: BuyerRecord) {
  return {
    type: 'buyer' as const,
    id: b.id,
    merchant_account_id: b.merchant_account_id,
    created_at: b.created_at,
    updated_at: b.updated_at,
    display_name: b.display_name,
    external_identifier: b.external_identifier,
    account_number: b.account_number,
    billing_details: normalizeBillingDetails(b.billing_details),
  };
}

/** A buyer nested in a gift card also carries its reconciliation id. */
export function serializeNestedBuyer(b: BuyerRecord) {
  return { ...serializeBuyer(b), reconciliation_id: b.reconciliation_id };
}
