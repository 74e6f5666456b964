// declarations for stores/indexeddb.js
