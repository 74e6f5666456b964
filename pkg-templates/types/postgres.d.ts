// declarations for stores/postgres.js
