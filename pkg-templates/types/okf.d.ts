// declarations for stores/okf.js
