// The receipt's print button (the page has no inline script: its Content-Security-Policy allows none).
for (const button of document.querySelectorAll('[data-print]')) {
  button.addEventListener('click', () => window.print());
}

// The printed page is as long as the slip: its named page (receipt.css) gets the paper's width by the
// slip's height, measured on screen, where the slip has the printed width and padding. Rules added to the
// page's own stylesheet through the CSSOM are not inline styles, so the CSP allows them. Measured again
// when fonts arrive, on resize and just before printing.
const slip = document.querySelector('.receipt');
const width = document.body.classList.contains('paper-80') ? 80 : 58;
const sheet = Array.from(document.styleSheets).find(
  (s) => s.href !== null && new URL(s.href).pathname.startsWith('/receipt/assets/'),
);
/** @type {CSSRule | null} */
let added = null;
function fitPage() {
  if (!slip || !sheet) return;
  // CSS pixels to millimetres (96 px an inch), rounded up, and one more so no sliver spills onto a second page.
  const mm = Math.ceil((slip.getBoundingClientRect().height * 25.4) / 96) + 1;
  if (added) {
    const at = Array.from(sheet.cssRules).indexOf(added);
    if (at >= 0) sheet.deleteRule(at);
  }
  const at = sheet.insertRule(`@page paper${width} { size: ${width}mm ${mm}mm; margin: 0; }`, sheet.cssRules.length);
  added = sheet.cssRules[at] ?? null;
  document.body.dataset.pageHeight = `${mm}mm`;
}
fitPage();
void document.fonts?.ready.then(fitPage);
window.addEventListener('resize', fitPage);
window.addEventListener('beforeprint', fitPage);
