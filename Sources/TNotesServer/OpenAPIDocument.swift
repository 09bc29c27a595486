/// The OpenAPI 3.1 description of every route, served at GET /openapi.json so that clients and tools (scripts/check-openapi.sh) read the API from the server itself.
enum OpenAPIDocument {
    static let json = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "tnotes-server",
        "version": "1",
        "description": "The tnotes sync server (contract §4, §6.4, §6.6; the snapshot for a device's first sync is this server's addition): device sync, sermon audio, the seed app's legacy endpoints and health. Every error the server answers itself is JSON `{error, detail}` (`field`, `limit` where they apply)."
      },
      "tags": [
        {
          "name": "sync",
          "description": "Device sync (contract §4)."
        },
        {
          "name": "audio",
          "description": "Sermon audio blobs."
        },
        {
          "name": "legacy",
          "description": "The seed app's endpoints (seed 000 §5), camelCase."
        },
        {
          "name": "health",
          "description": "Unauthenticated operational endpoints."
        },
        {
          "name": "pages",
          "description": "Published sermons (contract §6.5): public, no token."
        }
      ],
      "security": [
        {
          "bearerAuth": []
        }
      ],
      "paths": {
        "/healthz": {
          "get": {
            "operationId": "healthz",
            "tags": [
              "health"
            ],
            "summary": "Liveness",
            "security": [],
            "responses": {
              "200": {
                "description": "The server is up.",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object",
                      "required": [
                        "status"
                      ],
                      "properties": {
                        "status": {
                          "type": "string",
                          "const": "ok"
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        },
        "/metrics": {
          "get": {
            "operationId": "metrics",
            "tags": [
              "health"
            ],
            "summary": "Prometheus metrics",
            "description": "Requests by method and status, pushed changes by result, pulled changes, audio bytes by direction, in the Prometheus text format. Nothing that identifies a user.",
            "security": [],
            "responses": {
              "200": {
                "description": "Prometheus text exposition format 0.0.4.",
                "content": {
                  "text/plain": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          }
        },
        "/openapi.json": {
          "get": {
            "operationId": "openapi",
            "tags": [
              "health"
            ],
            "summary": "This document",
            "security": [],
            "responses": {
              "200": {
                "description": "The OpenAPI 3.1 description of every route.",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object",
                      "required": [
                        "openapi",
                        "paths"
                      ]
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/sync/push": {
          "post": {
            "operationId": "push",
            "tags": [
              "sync"
            ],
            "summary": "Push a batch of changes",
            "description": "Merges each change by `(updatedAt, deviceId)` with opId idempotency, all in one transaction. An invalid change is `rejected` with the reason; the others still apply.",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/PushRequest"
                  },
                  "examples": {
                    "sermonAndNote": {
                      "summary": "A new sermon and one note",
                      "value": {
                        "deviceId": "laptop-1",
                        "changes": [
                          {
                            "opId": "0190f1a2-0000-7000-8000-000000000001",
                            "collection": "sermons",
                            "id": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f",
                            "op": "upsert",
                            "updatedAt": "2025-03-02T10:00:00.000Z",
                            "deviceId": "laptop-1",
                            "record": {
                              "id": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f",
                              "title": "Grace",
                              "date": "2025-03-02",
                              "speaker": "A. Preacher",
                              "createdAt": "2025-03-02T10:00:00.000Z",
                              "updatedAt": "2025-03-02T10:00:00.000Z"
                            }
                          },
                          {
                            "opId": "0190f1a2-0000-7000-8000-000000000002",
                            "collection": "notes",
                            "id": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e20",
                            "op": "upsert",
                            "updatedAt": "2025-03-02T10:01:00.000Z",
                            "deviceId": "laptop-1",
                            "record": {
                              "id": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e20",
                              "sermonId": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f",
                              "text": "Ephesians 2:8",
                              "timestamp": 61.5,
                              "createdAt": "2025-03-02T10:01:00.000Z",
                              "updatedAt": "2025-03-02T10:01:00.000Z"
                            }
                          }
                        ]
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "One result per change, and the cursors around them.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/PushResponse"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              }
            }
          }
        },
        "/v1/sync/pull": {
          "get": {
            "operationId": "pull",
            "tags": [
              "sync"
            ],
            "summary": "Pull the changes after a cursor",
            "description": "The user's change log in commit order. With `wait` and nothing after the cursor, the request is held until a change of this user commits (on any server instance) or `wait` seconds pass (contract §6.4).",
            "parameters": [
              {
                "name": "cursor",
                "in": "query",
                "required": false,
                "description": "Opaque: the `cursor` of the previous pull or push (absent or empty: from the start). A cursor of a replaced server database starts over; text that is not a cursor at all answers 400.",
                "schema": {
                  "type": "string",
                  "pattern": "^([^.]+\\.[+-]?[0-9]{1,18})?$"
                }
              },
              {
                "name": "limit",
                "in": "query",
                "required": false,
                "description": "Most changes in the page (default 500; values above 5000 count as 5000).",
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 9223372036854775807,
                  "default": 500
                }
              },
              {
                "name": "wait",
                "in": "query",
                "required": false,
                "description": "Long-poll: seconds to hold the request while nothing follows the cursor.",
                "schema": {
                  "type": "integer",
                  "minimum": 0,
                  "maximum": 60,
                  "default": 0
                }
              }
            ],
            "responses": {
              "200": {
                "description": "A page of changes.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/PullResponse"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          }
        },
        "/v1/sync/snapshot": {
          "get": {
            "operationId": "snapshot",
            "tags": [
              "sync"
            ],
            "summary": "The user's records as they are now, for a device that has never pulled",
            "description": "One change per record (the one that made its current version), in key order, instead of the whole change log. Every page of one snapshot carries the same `cursor`: the log position read before its first page. After the last page a device pulls the log from that cursor, which brings the changes made while it paged (a record changed meanwhile may come twice; the newer version wins as usual).",
            "parameters": [
              {
                "name": "after",
                "in": "query",
                "required": false,
                "description": "Opaque: the `after` of the previous page (absent or empty: the first page). A position from a replaced server database starts over; text that is not a position at all answers 400.",
                "schema": {
                  "type": "string",
                  "pattern": "^([^.]+\\.[+]?[0-9]{1,18}\\.(sermons|notes|transcripts|summaries|chatMessages|conflicts|publications)\\..+)?$"
                }
              },
              {
                "name": "limit",
                "in": "query",
                "required": false,
                "description": "Most records in the page (default 500; values above 5000 count as 5000).",
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 9223372036854775807,
                  "default": 500
                }
              },
              {
                "name": "tombstones",
                "in": "query",
                "required": false,
                "description": "Deleted records too (as `op: delete`), for a device that already holds records of its own: without them it would keep a record the server deleted.",
                "schema": {
                  "type": "boolean",
                  "default": false
                }
              }
            ],
            "responses": {
              "200": {
                "description": "A page of records.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/SnapshotResponse"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          }
        },
        "/v1/audio/{sermonId}": {
          "parameters": [
            {
              "name": "sermonId",
              "in": "path",
              "required": true,
              "description": "The sermon's id (a UUID; another value answers 400).",
              "schema": {
                "$ref": "#/components/schemas/Uuid"
              }
            }
          ],
          "put": {
            "operationId": "putAudio",
            "tags": [
              "audio"
            ],
            "summary": "Upload a sermon's audio",
            "description": "The body is the file. Its SHA-256 must be declared in `X-Content-SHA256` (hex) or `Digest: sha-256=<base64>` (one of them is required); a missing or mismatched digest answers 400 and nothing is kept. Replaces any earlier upload.",
            "parameters": [
              {
                "name": "X-Content-SHA256",
                "in": "header",
                "required": false,
                "description": "The body's SHA-256 as 64 hex digits (wins over Digest).",
                "schema": {
                  "type": "string",
                  "pattern": "^[0-9a-fA-F]{64}$"
                }
              },
              {
                "name": "Digest",
                "in": "header",
                "required": false,
                "description": "`sha-256=<base64 of the 32-byte digest>` among comma-separated digests.",
                "schema": {
                  "type": "string"
                }
              }
            ],
            "requestBody": {
              "required": false,
              "description": "The file's bytes (an empty body stores an empty file).",
              "content": {
                "application/octet-stream": {
                  "schema": {
                    "type": "string",
                    "format": "binary"
                  }
                }
              }
            },
            "responses": {
              "201": {
                "description": "Stored.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/AudioInfo"
                    }
                  }
                },
                "links": {
                  "GetAudio": {
                    "operationId": "getAudio",
                    "parameters": {
                      "sermonId": "$response.body#/sermonId"
                    }
                  },
                  "HeadAudio": {
                    "operationId": "headAudio",
                    "parameters": {
                      "sermonId": "$response.body#/sermonId"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              }
            }
          },
          "get": {
            "operationId": "getAudio",
            "tags": [
              "audio"
            ],
            "summary": "Download a sermon's audio",
            "parameters": [
              {
                "name": "Range",
                "in": "header",
                "required": false,
                "description": "`bytes=START-END`, `bytes=START-` or `bytes=-SUFFIX` (one range; a multi-range or another unit gets the whole file). A range that starts at or after the end answers 416.",
                "schema": {
                  "type": "string"
                }
              }
            ],
            "responses": {
              "200": {
                "description": "The whole file.",
                "headers": {
                  "Accept-Ranges": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "const": "bytes"
                    }
                  },
                  "ETag": {
                    "required": true,
                    "description": "The quoted sha256.",
                    "schema": {
                      "type": "string",
                      "pattern": "^\"[0-9a-f]{64}\"$"
                    }
                  },
                  "X-Content-SHA256": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9a-f]{64}$"
                    }
                  },
                  "Content-Length": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9]+$"
                    }
                  }
                },
                "content": {
                  "application/octet-stream": {
                    "schema": {
                      "type": "string",
                      "format": "binary"
                    }
                  }
                }
              },
              "206": {
                "description": "The requested range.",
                "headers": {
                  "Accept-Ranges": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "const": "bytes"
                    }
                  },
                  "ETag": {
                    "required": true,
                    "description": "The quoted sha256.",
                    "schema": {
                      "type": "string",
                      "pattern": "^\"[0-9a-f]{64}\"$"
                    }
                  },
                  "X-Content-SHA256": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9a-f]{64}$"
                    }
                  },
                  "Content-Length": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9]+$"
                    }
                  },
                  "Content-Range": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^bytes [0-9]+-[0-9]+/[0-9]+$"
                    }
                  }
                },
                "content": {
                  "application/octet-stream": {
                    "schema": {
                      "type": "string",
                      "format": "binary"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "416": {
                "description": "The range cannot be satisfied (`range_not_satisfiable`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                },
                "headers": {
                  "Content-Range": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^bytes \\*/[0-9]+$"
                    }
                  }
                }
              }
            }
          },
          "head": {
            "operationId": "headAudio",
            "tags": [
              "audio"
            ],
            "summary": "A sermon's audio: headers only",
            "parameters": [
              {
                "name": "Range",
                "in": "header",
                "required": false,
                "description": "`bytes=START-END`, `bytes=START-` or `bytes=-SUFFIX` (one range; a multi-range or another unit gets the whole file). A range that starts at or after the end answers 416.",
                "schema": {
                  "type": "string"
                }
              }
            ],
            "responses": {
              "200": {
                "description": "The whole file.",
                "headers": {
                  "Accept-Ranges": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "const": "bytes"
                    }
                  },
                  "ETag": {
                    "required": true,
                    "description": "The quoted sha256.",
                    "schema": {
                      "type": "string",
                      "pattern": "^\"[0-9a-f]{64}\"$"
                    }
                  },
                  "X-Content-SHA256": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9a-f]{64}$"
                    }
                  },
                  "Content-Length": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9]+$"
                    }
                  }
                }
              },
              "206": {
                "description": "The requested range.",
                "headers": {
                  "Accept-Ranges": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "const": "bytes"
                    }
                  },
                  "ETag": {
                    "required": true,
                    "description": "The quoted sha256.",
                    "schema": {
                      "type": "string",
                      "pattern": "^\"[0-9a-f]{64}\"$"
                    }
                  },
                  "X-Content-SHA256": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9a-f]{64}$"
                    }
                  },
                  "Content-Length": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9]+$"
                    }
                  },
                  "Content-Range": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^bytes [0-9]+-[0-9]+/[0-9]+$"
                    }
                  }
                }
              },
              "400": {
                "description": "The sermon id is not a UUID."
              },
              "401": {
                "description": "No valid bearer token.",
                "headers": {
                  "WWW-Authenticate": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "const": "Bearer"
                    }
                  }
                }
              },
              "404": {
                "description": "No audio stored for this sermon."
              },
              "416": {
                "description": "The range cannot be satisfied.",
                "headers": {
                  "Content-Range": {
                    "required": true,
                    "schema": {
                      "type": "string",
                      "pattern": "^bytes \\*/[0-9]+$"
                    }
                  }
                }
              }
            }
          }
        },
        "/api/create-sermon": {
          "post": {
            "operationId": "legacyCreateSermon",
            "tags": [
              "legacy"
            ],
            "summary": "Seed API: create (or overwrite) a sermon",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/LegacyCreateSermon"
                  },
                  "examples": {
                    "withChildren": {
                      "summary": "A sermon with a note, a transcript and a summary",
                      "value": {
                        "localId": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f",
                        "title": "Grace",
                        "date": "2025-03-02T09:30:00Z",
                        "serviceType": "Sunday Service",
                        "speaker": null,
                        "notes": [
                          {
                            "localId": "0190f1a2-7b3c-7d4e-8f50-6a7b8c9d0e20",
                            "text": "Ephesians 2:8",
                            "timestamp": 61.5
                          }
                        ],
                        "transcript": {
                          "text": "For by grace",
                          "segments": [
                            {
                              "start": 0,
                              "end": 2.5,
                              "text": "For by grace"
                            }
                          ]
                        },
                        "summary": {
                          "title": "Grace",
                          "text": "Saved by grace.",
                          "type": "devotional"
                        }
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "201": {
                "description": "The sermon as get-sermons shows it.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/LegacySermon"
                    }
                  }
                },
                "links": {
                  "UpdateSermon": {
                    "operationId": "legacyUpdateSermon",
                    "requestBody": {
                      "localId": "$response.body#/id",
                      "title": "updated"
                    }
                  },
                  "UploadURL": {
                    "operationId": "legacyGenerateUploadURL",
                    "requestBody": {
                      "sermonId": "$response.body#/id"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              }
            }
          }
        },
        "/api/update-sermon": {
          "post": {
            "operationId": "legacyUpdateSermon",
            "tags": [
              "legacy"
            ],
            "summary": "Seed API: update an existing sermon",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/LegacyUpdateSermon"
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "The sermon as get-sermons shows it.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/LegacySermon"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              }
            }
          }
        },
        "/api/get-sermons": {
          "get": {
            "operationId": "legacyGetSermons",
            "tags": [
              "legacy"
            ],
            "summary": "Seed API: every live sermon of the token's user",
            "description": "Newest date first, with notes, transcript and summary joined.",
            "parameters": [
              {
                "name": "userId",
                "in": "query",
                "required": false,
                "description": "Ignored: the token says who the user is.",
                "schema": {
                  "type": "string"
                }
              }
            ],
            "responses": {
              "200": {
                "description": "The user's sermons.",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/LegacySermon"
                      }
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          }
        },
        "/api/generate-upload-url": {
          "post": {
            "operationId": "legacyGenerateUploadURL",
            "tags": [
              "legacy"
            ],
            "summary": "Seed API: where to upload a sermon's audio",
            "description": "Answers the URL of PUT /v1/audio/{sermonId} (nothing is stored).",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/LegacyUploadURLRequest"
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "The upload target.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/LegacyUploadURL"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              }
            }
          }
        },
        "/p/{publicId}": {
          "get": {
            "operationId": "getPublicPage",
            "tags": [
              "pages"
            ],
            "summary": "A published sermon as an HTML page (no script needed), or with `.json` appended as JSON",
            "security": [],
            "parameters": [
              {
                "name": "publicId",
                "in": "path",
                "required": true,
                "schema": {
                  "type": "string"
                },
                "description": "The page's public id (for the HTML page; the same route answers `{publicId}.json` with the content as JSON)."
              }
            ],
            "responses": {
              "200": {
                "description": "The published page. Cacheable: ETag, Cache-Control.",
                "headers": {
                  "ETag": {
                    "schema": {
                      "type": "string"
                    }
                  }
                },
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/PublishedPage"
                    }
                  }
                }
              },
              "304": {
                "description": "Not modified (If-None-Match matched the ETag)."
              },
              "404": {
                "description": "No page has this id.",
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "410": {
                "description": "The page was unpublished.",
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              }
            }
          },
          "head": {
            "operationId": "headPublicPage",
            "tags": [
              "pages"
            ],
            "summary": "As GET, without the body",
            "security": [],
            "parameters": [
              {
                "name": "publicId",
                "in": "path",
                "required": true,
                "schema": {
                  "type": "string"
                },
                "description": "The page's public id (for the HTML page; the same route answers `{publicId}.json` with the content as JSON)."
              }
            ],
            "responses": {
              "200": {
                "description": "The published page. Cacheable: ETag, Cache-Control.",
                "headers": {
                  "ETag": {
                    "schema": {
                      "type": "string"
                    }
                  }
                },
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/PublishedPage"
                    }
                  }
                }
              },
              "304": {
                "description": "Not modified (If-None-Match matched the ETag)."
              },
              "404": {
                "description": "No page has this id.",
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "410": {
                "description": "The page was unpublished.",
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              }
            }
          }
        }
      },
      "components": {
        "securitySchemes": {
          "bearerAuth": {
            "type": "http",
            "scheme": "bearer",
            "description": "A token from `tnotes-server user add NAME`."
          }
        },
        "schemas": {
          "Error": {
            "type": "object",
            "description": "Every error the server itself answers (contract §7).",
            "required": [
              "error",
              "detail"
            ],
            "properties": {
              "error": {
                "type": "string",
                "description": "A stable code: invalid_request, malformed_json, unauthorized, not_found, too_large, too_many_items, range_not_satisfiable, storage, …"
              },
              "detail": {
                "type": "string",
                "description": "What was wrong, for people."
              },
              "field": {
                "type": "string",
                "description": "The request field at fault (invalid_request, too_many_items)."
              },
              "limit": {
                "type": "integer",
                "description": "The item limit (too_many_items)."
              }
            }
          },
          "Uuid": {
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "A UUID in 8-4-4-4-12 form, any letter case; the server stores and answers it lowercase."
          },
          "Time": {
            "type": "string",
            "pattern": "^((19[7-9][0-9]|[2-9][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))|(19(7[26]|8[048]|9[26])|[2-9][0-9](0[48]|[2468][048]|[13579][26])|([2468][048]|[3579][26])00)-02-29)([Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$",
            "description": "An RFC 3339 time (any offset and fraction precision) or a plain YYYY-MM-DD date (midnight UTC), between 1970 and 9999. Stored and answered in the canonical form YYYY-MM-DDTHH:MM:SS.mmmZ."
          },
          "CanonicalTime": {
            "type": "string",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
            "description": "A time as the server writes it: YYYY-MM-DDTHH:MM:SS.mmmZ (UTC, milliseconds)."
          },
          "Text": {
            "type": "string",
            "pattern": "\\S",
            "description": "A string that is not empty or only whitespace."
          },
          "ProcessingStatus": {
            "type": "string",
            "enum": [
              "pending",
              "processing",
              "complete",
              "failed"
            ]
          },
          "SummaryType": {
            "type": "string",
            "enum": [
              "devotional",
              "bullet",
              "theological"
            ]
          },
          "Collection": {
            "type": "string",
            "enum": [
              "sermons",
              "notes",
              "transcripts",
              "summaries",
              "chatMessages",
              "conflicts",
              "publications"
            ]
          },
          "Segment": {
            "type": "object",
            "description": "One transcript segment; `end` must not be before `start`.",
            "required": [
              "start",
              "end",
              "text"
            ],
            "additionalProperties": false,
            "properties": {
              "start": {
                "type": "number",
                "minimum": 0
              },
              "end": {
                "type": "number",
                "minimum": 0
              },
              "text": {
                "type": "string"
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ]
              }
            }
          },
          "AudioMeta": {
            "type": "object",
            "required": [
              "fileName",
              "sizeBytes",
              "sha256"
            ],
            "additionalProperties": false,
            "properties": {
              "fileName": {
                "$ref": "#/components/schemas/Text"
              },
              "sizeBytes": {
                "type": "integer",
                "minimum": 0
              },
              "sha256": {
                "type": "string",
                "pattern": "^[0-9a-f]{64}$"
              }
            }
          },
          "Sermon": {
            "type": "object",
            "description": "A sermon record (collection `sermons`). Fields with defaults may be left out.",
            "required": [
              "id",
              "title",
              "date",
              "createdAt",
              "updatedAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "title": {
                "type": "string"
              },
              "date": {
                "$ref": "#/components/schemas/Time"
              },
              "serviceType": {
                "type": "string",
                "default": "Sunday Service"
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ],
                "default": null
              },
              "isArchived": {
                "type": "boolean",
                "default": false
              },
              "transcriptionStatus": {
                "$ref": "#/components/schemas/ProcessingStatus",
                "default": "pending"
              },
              "summaryStatus": {
                "$ref": "#/components/schemas/ProcessingStatus",
                "default": "pending"
              },
              "audio": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/AudioMeta"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null
              },
              "createdAt": {
                "$ref": "#/components/schemas/Time"
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deletedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null
              }
            }
          },
          "Note": {
            "type": "object",
            "description": "A note record (collection `notes`).",
            "required": [
              "id",
              "sermonId",
              "text",
              "timestamp",
              "createdAt",
              "updatedAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "text": {
                "type": "string"
              },
              "timestamp": {
                "type": "number",
                "minimum": 0
              },
              "createdAt": {
                "$ref": "#/components/schemas/Time"
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deletedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null
              }
            }
          },
          "Transcript": {
            "type": "object",
            "description": "A transcript record (collection `transcripts`).",
            "required": [
              "id",
              "sermonId",
              "text",
              "updatedAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "text": {
                "type": "string"
              },
              "status": {
                "$ref": "#/components/schemas/ProcessingStatus",
                "default": "complete"
              },
              "segments": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Segment"
                },
                "default": []
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deletedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null
              }
            }
          },
          "Summary": {
            "type": "object",
            "description": "A summary record (collection `summaries`).",
            "required": [
              "id",
              "sermonId",
              "title",
              "text",
              "type",
              "updatedAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "title": {
                "type": "string"
              },
              "text": {
                "type": "string"
              },
              "type": {
                "$ref": "#/components/schemas/SummaryType"
              },
              "status": {
                "$ref": "#/components/schemas/ProcessingStatus",
                "default": "complete"
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deletedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null
              },
              "generatedBy": {
                "type": [
                  "string",
                  "null"
                ],
                "description": "The engine that wrote it (\"builtin\", \"command\"); absent or null when a person set it (contract §6.1: automatic summaries never replace it)."
              }
            }
          },
          "ChatMessage": {
            "type": "object",
            "description": "A chat message record (collection `chatMessages`, append-only).",
            "required": [
              "id",
              "sermonId",
              "role",
              "content",
              "createdAt",
              "deviceId"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "role": {
                "type": "string",
                "enum": [
                  "user",
                  "assistant"
                ]
              },
              "content": {
                "type": "string"
              },
              "createdAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              }
            }
          },
          "Record": {
            "description": "A record of one of the seven collections, as its collection's schema describes it.",
            "anyOf": [
              {
                "$ref": "#/components/schemas/Sermon"
              },
              {
                "$ref": "#/components/schemas/Note"
              },
              {
                "$ref": "#/components/schemas/Transcript"
              },
              {
                "$ref": "#/components/schemas/Summary"
              },
              {
                "$ref": "#/components/schemas/ChatMessage"
              },
              {
                "$ref": "#/components/schemas/Conflict"
              },
              {
                "$ref": "#/components/schemas/Publication"
              }
            ]
          },
          "Change": {
            "description": "One change (contract §4): `record` follows the schema of `collection`; `record.id` equals `id`; `record.updatedAt` equals `updatedAt` (for a chat message `record.createdAt` does, and `op` is upsert); a delete carries its tombstone (`record.deletedAt`), an upsert does not.",
            "oneOf": [
              {
                "$ref": "#/components/schemas/SermonChange"
              },
              {
                "$ref": "#/components/schemas/NoteChange"
              },
              {
                "$ref": "#/components/schemas/TranscriptChange"
              },
              {
                "$ref": "#/components/schemas/SummaryChange"
              },
              {
                "$ref": "#/components/schemas/ChatMessageChange"
              },
              {
                "$ref": "#/components/schemas/ConflictChange"
              },
              {
                "$ref": "#/components/schemas/PublicationChange"
              }
            ],
            "discriminator": {
              "propertyName": "collection",
              "mapping": {
                "sermons": "#/components/schemas/SermonChange",
                "notes": "#/components/schemas/NoteChange",
                "transcripts": "#/components/schemas/TranscriptChange",
                "summaries": "#/components/schemas/SummaryChange",
                "chatMessages": "#/components/schemas/ChatMessageChange",
                "conflicts": "#/components/schemas/ConflictChange",
                "publications": "#/components/schemas/PublicationChange"
              }
            }
          },
          "SermonChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "sermons"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/Sermon"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "NoteChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "notes"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/Note"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "TranscriptChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "transcripts"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/Transcript"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "SummaryChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "summaries"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/Summary"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "ChatMessageChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "chatMessages"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/ChatMessage"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "PushRequest": {
            "type": "object",
            "required": [
              "changes"
            ],
            "properties": {
              "deviceId": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "changes": {
                "type": "array",
                "maxItems": 10000,
                "description": "At most `[server] max_push_changes` (default 10000) changes; more answer 413 too_many_items. Each element is decided on its own: one that is not a valid Change is answered `rejected` in `results` (with the reason) and the others still apply, so any JSON value is accepted here.",
                "items": {
                  "anyOf": [
                    {
                      "$ref": "#/components/schemas/Change"
                    },
                    {
                      "description": "Any other JSON value: answered `rejected`, with the reason, in `results`."
                    }
                  ]
                }
              }
            }
          },
          "PushResult": {
            "type": "object",
            "required": [
              "opId",
              "status"
            ],
            "properties": {
              "opId": {
                "type": "string",
                "description": "The change's opId (\"\" when it had none)."
              },
              "status": {
                "type": "string",
                "enum": [
                  "applied",
                  "duplicate",
                  "superseded",
                  "rejected",
                  "merged"
                ]
              },
              "error": {
                "type": "string",
                "description": "Why the change was rejected (`field: reason`)."
              },
              "record": {
                "type": "object",
                "description": "For `merged`: the record as stored, the merge of this change and a concurrent edit of the same base (contract §6.3)."
              },
              "updatedAt": {
                "type": "string",
                "description": "For `merged`: the stored version's updatedAt (greater than both sides)."
              },
              "deviceId": {
                "type": "string",
                "description": "For `merged`: the stored version's deviceId."
              }
            }
          },
          "PushResponse": {
            "type": "object",
            "required": [
              "results",
              "cursor",
              "previousCursor",
              "serverEpoch"
            ],
            "properties": {
              "results": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/PushResult"
                },
                "description": "One result per pushed change, in order."
              },
              "cursor": {
                "type": "string",
                "description": "The user's cursor just after this push's changes."
              },
              "previousCursor": {
                "type": "string",
                "description": "The cursor just before this push's changes: a device whose pull cursor equals it may move it to `cursor` without pulling its own changes back."
              },
              "serverEpoch": {
                "type": "string",
                "description": "The server database's epoch: a random id made when the database was created. When it changes (the database was replaced), a device deletes nothing: it pushes every record it holds again and pulls from the start (contract §6.3)."
              }
            }
          },
          "PulledChange": {
            "type": "object",
            "required": [
              "seq",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "properties": {
              "seq": {
                "type": "integer",
                "minimum": 1
              },
              "collection": {
                "$ref": "#/components/schemas/Collection"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "type": "string"
              },
              "deviceId": {
                "type": "string"
              },
              "record": {
                "type": "object",
                "description": "The record as stored (see Record)."
              }
            }
          },
          "PullResponse": {
            "type": "object",
            "required": [
              "changes",
              "cursor",
              "hasMore",
              "serverEpoch"
            ],
            "properties": {
              "changes": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/PulledChange"
                }
              },
              "cursor": {
                "type": "string",
                "description": "Pass it as `cursor` in the next pull."
              },
              "hasMore": {
                "type": "boolean",
                "description": "More changes follow: pull again at once."
              },
              "serverEpoch": {
                "type": "string",
                "description": "The server database's epoch: a random id made when the database was created. When it changes (the database was replaced), a device deletes nothing: it pushes every record it holds again and pulls from the start (contract §6.3)."
              }
            }
          },
          "SnapshotResponse": {
            "type": "object",
            "required": [
              "changes",
              "cursor",
              "hasMore",
              "serverEpoch"
            ],
            "properties": {
              "changes": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/PulledChange"
                }
              },
              "cursor": {
                "type": "string",
                "description": "Where the log stood when the snapshot began: after the last page, pull from it."
              },
              "hasMore": {
                "type": "boolean",
                "description": "More records follow: ask again with `after`."
              },
              "after": {
                "type": "string",
                "description": "Present when `hasMore`: pass it as `after` for the next page."
              },
              "serverEpoch": {
                "type": "string",
                "description": "The server database's epoch, as in a pull."
              }
            }
          },
          "AudioInfo": {
            "type": "object",
            "required": [
              "sermonId",
              "sha256",
              "sizeBytes"
            ],
            "properties": {
              "sermonId": {
                "type": "string"
              },
              "sha256": {
                "type": "string",
                "pattern": "^[0-9a-f]{64}$"
              },
              "sizeBytes": {
                "type": "integer",
                "minimum": 0
              }
            }
          },
          "LegacyNoteInput": {
            "type": "object",
            "description": "A note of a legacy body: `id` (or, when it is absent or null, `localId`) names it.",
            "required": [
              "text"
            ],
            "properties": {
              "id": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Uuid"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "localId": {},
              "text": {
                "type": "string"
              },
              "timestamp": {
                "type": [
                  "number",
                  "null"
                ],
                "minimum": 0,
                "description": "Seconds into the recording (default 0)."
              }
            },
            "anyOf": [
              {
                "required": [
                  "id"
                ],
                "properties": {
                  "id": {
                    "$ref": "#/components/schemas/Uuid"
                  }
                }
              },
              {
                "required": [
                  "localId"
                ],
                "properties": {
                  "id": {
                    "type": "null"
                  },
                  "localId": {
                    "$ref": "#/components/schemas/Uuid"
                  }
                }
              }
            ]
          },
          "LegacyTranscriptInput": {
            "type": "object",
            "required": [
              "text"
            ],
            "properties": {
              "id": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Uuid"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "text": {
                "type": "string"
              },
              "status": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/ProcessingStatus"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "segments": {
                "type": [
                  "array",
                  "null"
                ],
                "maxItems": 10000,
                "items": {
                  "$ref": "#/components/schemas/Segment"
                },
                "description": "A JSON array (more than `[server] max_push_changes` segments answer 413). For the seed app, a string holding such an array as JSON text is accepted too."
              }
            }
          },
          "LegacySummaryInput": {
            "type": "object",
            "required": [
              "title",
              "text",
              "type"
            ],
            "properties": {
              "id": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Uuid"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "title": {
                "type": "string"
              },
              "text": {
                "type": "string"
              },
              "type": {
                "$ref": "#/components/schemas/SummaryType"
              },
              "status": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/ProcessingStatus"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "LegacyCreateSermon": {
            "type": "object",
            "description": "Seed 000 §5 create-sermon body (camelCase). Upserts the sermon `localId` and its children; `notes`, when given, replace the sermon's notes as a set. Other keys are ignored.",
            "required": [
              "localId",
              "title"
            ],
            "properties": {
              "localId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "title": {
                "type": "string"
              },
              "date": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "serviceType": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "isArchived": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "transcriptionStatus": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/ProcessingStatus"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "summaryStatus": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/ProcessingStatus"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "notes": {
                "type": [
                  "array",
                  "null"
                ],
                "maxItems": 10000,
                "items": {
                  "$ref": "#/components/schemas/LegacyNoteInput"
                }
              },
              "transcript": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/LegacyTranscriptInput"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "summary": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/LegacySummaryInput"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "LegacyUpdateSermon": {
            "type": "object",
            "description": "Seed 000 §5 update-sermon body: like create-sermon, but the sermon must exist (404 otherwise), it is named by `remoteId` when that key is present (else by `localId`), and every field but the id is optional; a null field is left as it is (a null `speaker` clears it).",
            "properties": {
              "remoteId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "localId": {},
              "title": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "date": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "serviceType": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "isArchived": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "transcriptionStatus": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/ProcessingStatus"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "summaryStatus": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/ProcessingStatus"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "notes": {
                "type": [
                  "array",
                  "null"
                ],
                "maxItems": 10000,
                "items": {
                  "$ref": "#/components/schemas/LegacyNoteInput"
                }
              },
              "transcript": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/LegacyTranscriptInput"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "summary": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/LegacySummaryInput"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            },
            "anyOf": [
              {
                "required": [
                  "remoteId"
                ]
              },
              {
                "required": [
                  "localId"
                ],
                "properties": {
                  "localId": {
                    "$ref": "#/components/schemas/Uuid"
                  }
                },
                "not": {
                  "required": [
                    "remoteId"
                  ]
                }
              }
            ]
          },
          "LegacyNote": {
            "type": "object",
            "required": [
              "id",
              "localId",
              "text",
              "timestamp"
            ],
            "properties": {
              "id": {
                "type": "string"
              },
              "localId": {
                "type": "string"
              },
              "text": {
                "type": "string"
              },
              "timestamp": {
                "type": "number"
              }
            }
          },
          "LegacyTranscript": {
            "type": "object",
            "required": [
              "id",
              "localId",
              "text",
              "segments",
              "status"
            ],
            "properties": {
              "id": {
                "type": "string"
              },
              "localId": {
                "type": "string"
              },
              "text": {
                "type": "string"
              },
              "segments": {
                "type": "array",
                "description": "A real JSON array (never a string)."
              },
              "status": {
                "type": "string"
              }
            }
          },
          "LegacySummary": {
            "type": "object",
            "required": [
              "id",
              "localId",
              "title",
              "text",
              "type",
              "status"
            ],
            "properties": {
              "id": {
                "type": "string"
              },
              "localId": {
                "type": "string"
              },
              "title": {
                "type": "string"
              },
              "text": {
                "type": "string"
              },
              "type": {
                "type": "string"
              },
              "status": {
                "type": "string"
              }
            }
          },
          "LegacySermon": {
            "type": "object",
            "description": "A sermon in the seed's §5.3 shape, with its live notes, transcript and summary joined.",
            "required": [
              "id",
              "localId",
              "title",
              "audioFileURL",
              "audioFilePath",
              "audioFileName",
              "audioFileSizeBytes",
              "date",
              "serviceType",
              "speaker",
              "transcriptionStatus",
              "summaryStatus",
              "isArchived",
              "userId",
              "updatedAt",
              "notes",
              "transcript",
              "summary"
            ],
            "properties": {
              "id": {
                "type": "string"
              },
              "localId": {
                "type": "string"
              },
              "title": {
                "type": "string"
              },
              "audioFileURL": {
                "type": [
                  "string",
                  "null"
                ],
                "description": "Where GET /v1/audio/{id} serves the audio, when stored."
              },
              "audioFilePath": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "audioFileName": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "audioFileSizeBytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "date": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "serviceType": {
                "type": "string"
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "transcriptionStatus": {
                "type": "string"
              },
              "summaryStatus": {
                "type": "string"
              },
              "isArchived": {
                "type": "boolean"
              },
              "userId": {
                "type": "string"
              },
              "updatedAt": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "notes": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/LegacyNote"
                }
              },
              "transcript": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/LegacyTranscript"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "summary": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/LegacySummary"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "LegacyUploadURLRequest": {
            "type": "object",
            "description": "Names the sermon by the first of `sermonId`, `localId`, `id` that is present; other keys are ignored.",
            "properties": {
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "localId": {},
              "id": {}
            },
            "anyOf": [
              {
                "required": [
                  "sermonId"
                ]
              },
              {
                "required": [
                  "localId"
                ],
                "properties": {
                  "localId": {
                    "$ref": "#/components/schemas/Uuid"
                  }
                },
                "not": {
                  "required": [
                    "sermonId"
                  ]
                }
              },
              {
                "required": [
                  "id"
                ],
                "properties": {
                  "id": {
                    "$ref": "#/components/schemas/Uuid"
                  }
                },
                "not": {
                  "anyOf": [
                    {
                      "required": [
                        "sermonId"
                      ]
                    },
                    {
                      "required": [
                        "localId"
                      ]
                    }
                  ]
                }
              }
            ]
          },
          "LegacyUploadURL": {
            "type": "object",
            "required": [
              "uploadUrl",
              "url",
              "method",
              "path",
              "headers"
            ],
            "properties": {
              "uploadUrl": {
                "type": "string",
                "description": "Absolute URL of PUT /v1/audio/{sermonId}."
              },
              "url": {
                "type": "string",
                "description": "The same as uploadUrl."
              },
              "method": {
                "type": "string",
                "const": "PUT"
              },
              "path": {
                "type": "string"
              },
              "headers": {
                "type": "object",
                "additionalProperties": {
                  "type": "string"
                }
              }
            }
          },
          "Base": {
            "type": "object",
            "required": [
              "updatedAt",
              "deviceId"
            ],
            "additionalProperties": false,
            "description": "The version an edit was made on (contract §6.3). When the server's current version is another one, the server merges the two edits field by field and word by word instead of letting one win.",
            "properties": {
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              }
            }
          },
          "Conflict": {
            "type": "object",
            "description": "A passage two devices changed differently (contract §6.3); made by the server's merge, resolved on a device.",
            "required": [
              "id",
              "collection",
              "recordId",
              "sermonId",
              "field",
              "base",
              "local",
              "remote",
              "merged",
              "state",
              "createdAt",
              "updatedAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "collection": {
                "type": "string",
                "enum": [
                  "notes",
                  "sermons",
                  "summaries",
                  "transcripts"
                ]
              },
              "recordId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "field": {
                "$ref": "#/components/schemas/Text"
              },
              "base": {
                "type": "string"
              },
              "local": {
                "type": "string"
              },
              "remote": {
                "type": "string"
              },
              "merged": {
                "type": "string"
              },
              "state": {
                "type": "string",
                "enum": [
                  "open",
                  "resolved"
                ]
              },
              "createdAt": {
                "$ref": "#/components/schemas/Time"
              },
              "resolvedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deletedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "ConflictChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "conflicts"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/Conflict"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "PublicId": {
            "type": "string",
            "pattern": "^([a-z0-9]+(-[a-z0-9]+)*-)?[0-9a-f]{16}$",
            "maxLength": 80,
            "description": "A readable slug, a dash and 16 hex digits (64 random bits)."
          },
          "PublishedSnapshot": {
            "type": "object",
            "description": "What the public page shows, as a JSON object (never JSON text in a string: seed 004's first bug).",
            "properties": {
              "title": {
                "type": "string"
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "date": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "serviceType": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "notes": {
                "type": "array",
                "items": {
                  "type": "object",
                  "properties": {
                    "timestamp": {
                      "type": "number"
                    },
                    "text": {
                      "type": "string"
                    }
                  }
                }
              },
              "summary": {
                "type": [
                  "object",
                  "null"
                ],
                "properties": {
                  "title": {
                    "type": "string"
                  },
                  "text": {
                    "type": "string"
                  },
                  "type": {
                    "type": "string"
                  }
                }
              },
              "transcript": {
                "type": [
                  "object",
                  "null"
                ],
                "properties": {
                  "text": {
                    "type": "string"
                  },
                  "segments": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Segment"
                    }
                  }
                }
              }
            }
          },
          "Publication": {
            "type": "object",
            "description": "A sermon's public page (collection `publications`, contract §6.5): the whole publish or unpublish, queued and sent as is. An unpublish keeps `publicId` (seed 004's third bug).",
            "required": [
              "id",
              "sermonId",
              "publicId",
              "published",
              "updatedAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "sermonId": {
                "$ref": "#/components/schemas/Uuid"
              },
              "publicId": {
                "$ref": "#/components/schemas/PublicId"
              },
              "parts": {
                "type": "array",
                "items": {
                  "type": "string",
                  "enum": [
                    "notes",
                    "summary",
                    "transcript"
                  ]
                },
                "default": [
                  "notes",
                  "summary"
                ]
              },
              "published": {
                "type": "boolean"
              },
              "snapshot": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/PublishedSnapshot"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "publishedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deletedAt": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "PublicationChange": {
            "type": "object",
            "required": [
              "opId",
              "collection",
              "id",
              "op",
              "updatedAt",
              "deviceId",
              "record"
            ],
            "additionalProperties": false,
            "properties": {
              "opId": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Text"
                  }
                ],
                "description": "Idempotency key: a second push of it answers duplicate."
              },
              "collection": {
                "type": "string",
                "const": "publications"
              },
              "id": {
                "$ref": "#/components/schemas/Uuid"
              },
              "op": {
                "type": "string",
                "enum": [
                  "upsert",
                  "delete"
                ]
              },
              "updatedAt": {
                "$ref": "#/components/schemas/Time"
              },
              "deviceId": {
                "$ref": "#/components/schemas/Text"
              },
              "record": {
                "$ref": "#/components/schemas/Publication"
              },
              "seq": {
                "description": "Ignored (a pulled change may be pushed back as it came)."
              },
              "base": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Base"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "PublishedPage": {
            "type": "object",
            "required": [
              "publicId",
              "title",
              "speaker",
              "date",
              "serviceType",
              "notes",
              "summary",
              "transcript",
              "publishedAt"
            ],
            "properties": {
              "publicId": {
                "$ref": "#/components/schemas/PublicId"
              },
              "title": {
                "type": "string"
              },
              "speaker": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "date": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "serviceType": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "notes": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "timestamp",
                    "text"
                  ],
                  "properties": {
                    "timestamp": {
                      "type": "number"
                    },
                    "text": {
                      "type": "string"
                    }
                  }
                }
              },
              "summary": {
                "type": [
                  "object",
                  "null"
                ]
              },
              "transcript": {
                "type": [
                  "object",
                  "null"
                ]
              },
              "publishedAt": {
                "type": "string"
              }
            }
          }
        },
        "responses": {
          "BadRequest": {
            "description": "The request is invalid: malformed JSON (`malformed_json`) or a field that is missing, of the wrong type or out of range (`invalid_request`, `field` names it).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Unauthorized": {
            "description": "No valid `Authorization: Bearer` token.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            },
            "headers": {
              "WWW-Authenticate": {
                "required": true,
                "schema": {
                  "type": "string",
                  "const": "Bearer"
                }
              }
            }
          },
          "NotFound": {
            "description": "No such resource for this user (another user's id answers 404 too).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "TooLarge": {
            "description": "The body is over `[server] max_body_bytes` (`too_large`), or it carries more items than `[server] max_push_changes` (`too_many_items`, with `field` and `limit`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    }
    """#
}
