// @ts-nocheck: a service worker runs in a worker scope (install, fetch and waitUntil), which the DOM library
// that type-checks the pages' scripts does not describe; this file is small and plain.
// The point of sale's service worker (served at /dashboard/pos-sw.js with SHELL and KEEP written above
// this line by pages/pos-shell.ts). It keeps the offline shell and the files it needs, and answers a
// page of the point of sale from the network, or with the shell when the network is down: charging needs
// the gateway, so nothing else is served from the cache. The status stream and every form go straight
// to the network.
/* global SHELL, KEEP */
const CACHE = `qg-pos:${KEEP.join('|')}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(KEEP))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((n) => n.startsWith('qg-pos:') && n !== CACHE).map((n) => caches.delete(n))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(() => caches.match(SHELL)));
    return;
  }
  if (KEEP.includes(url.pathname)) {
    event.respondWith(fetch(request).catch(() => caches.match(url.pathname)));
  }
});
