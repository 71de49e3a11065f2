"""The notebook tests import their helpers from this folder."""
