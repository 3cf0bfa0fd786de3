"""Cypher queries shared by every graph store (package data)."""
