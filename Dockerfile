# linkgraph's command line in a container, for use beside the Neo4j service of docker-compose.yml.
FROM python:3.11-slim
WORKDIR /src
# the Debian tools scripts/setup.sh installs: unpackers, binutils, graphviz and Pango (diagrams, PDF report)
COPY scripts/debian-packages.txt scripts/
RUN apt-get update && apt-get install -y --no-install-recommends binutils graphviz fonts-dejavu-core \
        libpango-1.0-0 libpangoft2-1.0-0 $(grep -v '^#' scripts/debian-packages.txt) \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY linkgraph linkgraph
COPY loader loader
COPY cypher cypher
COPY viewer viewer
RUN pip install --no-cache-dir . && rm -rf /src
WORKDIR /work
EXPOSE 8750
ENTRYPOINT ["linkgraph"]
CMD ["--help"]
