FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PRISMA_SCHEMA_ENGINE_BINARY=/bin/false
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
EXPOSE 8080
CMD ["npm", "start"]
