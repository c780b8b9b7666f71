"""In-domain judgements: annotation rounds over the project's own candidates, read back as a labelled set."""
