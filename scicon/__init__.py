"""SciCon: mining PubMed RCT abstracts for hard biomedical contradictions with EvoNLI."""

__version__ = "0.1.0"
