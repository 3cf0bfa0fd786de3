# linkgraph's command line in a container, for use beside the Neo4j service of docker-compose.yml.
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends binutils && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY linkgraph linkgraph
COPY loader loader
COPY cypher cypher
RUN pip install --no-cache-dir . && rm -rf /src
WORKDIR /work
ENTRYPOINT ["linkgraph"]
CMD ["--help"]
