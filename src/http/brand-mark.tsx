/**
 * The product's mark in the top bar of every page we render: the dashboard (src/dashboard/layout.tsx) and the public
 * status page (status-page.tsx). It lives in http/, the surfaces' base, so both can use the one drawing.
 */
export function BrandMark() {
  return (
    <span class="brand-mark" aria-hidden="true">
      <svg width="16" height="16" viewBox="0 0 16 16" fill="none" aria-hidden="true" role="presentation">
        <path d="M3 12.5 8 3l5 9.5" stroke="#fff" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" />
        <path d="M5.2 9h5.6" stroke="#fff" stroke-width="1.8" stroke-linecap="round" />
      </svg>
    </span>
  );
}
