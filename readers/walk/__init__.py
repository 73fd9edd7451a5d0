"""The walk: list the files under the roots, hash and sniff them, and open containers into child
documents."""
