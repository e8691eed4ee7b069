// The receipt's print button (the page has no inline script: its Content-Security-Policy allows none).
for (const button of document.querySelectorAll('[data-print]')) {
  button.addEventListener('click', () => window.print());
}
