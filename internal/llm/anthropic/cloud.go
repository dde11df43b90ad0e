package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/bedrock"
	"github.com/anthropics/anthropic-sdk-go/option"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
)

// Bedrock returns the SDK options that send requests to Claude on Amazon
// Bedrock. Credentials come from where the AWS tools look for them (the
// environment, the shared config and credentials files, SSO, instance
// roles) or from a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK; region and
// profile may be empty.
func Bedrock(ctx context.Context, region, profile string) ([]option.RequestOption, error) {
	var load []func(*awsconfig.LoadOptions) error
	if region != "" {
		load = append(load, awsconfig.WithRegion(region))
	}
	if profile != "" {
		load = append(load, awsconfig.WithSharedConfigProfile(profile))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	return []option.RequestOption{bedrock.WithConfig(cfg)}, nil
}

// VertexConfig says where Claude on Vertex AI is.
type VertexConfig struct {
	Region  string // "global", "us-east5", ...
	Project string
	// Token returns an OAuth2 access token for the cloud-platform scope.
	Token func(context.Context) (string, error)
	// BaseURL overrides the regional endpoint (tests).
	BaseURL string
}

// vertexVersion is the anthropic_version Vertex AI expects in the body.
const vertexVersion = "vertex-2023-10-16"

// Vertex returns the SDK options that send requests to Claude on Vertex
// AI: the regional endpoint, and a middleware that moves the model into the
// URL, sets anthropic_version and authorises the request.
func Vertex(c VertexConfig) []option.RequestOption {
	base := c.BaseURL
	if base == "" {
		switch c.Region {
		case "", "global":
			base = "https://aiplatform.googleapis.com/"
		case "us", "eu":
			base = "https://aiplatform." + c.Region + ".rep.googleapis.com/"
		default:
			base = "https://" + c.Region + "-aiplatform.googleapis.com/"
		}
	}
	region := c.Region
	if region == "" {
		region = "global"
	}
	return []option.RequestOption{option.WithBaseURL(base), option.WithMiddleware(vertexMiddleware(region, c.Project, c.Token))}
}

func vertexMiddleware(region, project string, token func(context.Context) (string, error)) option.Middleware {
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages") && r.Body != nil {
			if project == "" {
				return nil, errors.New("vertex: no Google Cloud project (set GOOGLE_VERTEX_PROJECT or GOOGLE_CLOUD_PROJECT)")
			}
			data, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				return nil, err
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(data, &body); err != nil {
				return nil, fmt.Errorf("vertex: request body: %w", err)
			}
			var model string
			_ = json.Unmarshal(body["model"], &model)
			delete(body, "model")
			if _, ok := body["anthropic_version"]; !ok {
				body["anthropic_version"] = json.RawMessage(`"` + vertexVersion + `"`)
			}
			spec := "rawPredict"
			if string(body["stream"]) == "true" {
				spec = "streamRawPredict"
			}
			if data, err = json.Marshal(body); err != nil {
				return nil, err
			}
			prefix := strings.TrimSuffix(r.URL.Path, "/v1/messages")
			r.URL.Path = fmt.Sprintf("%s/v1/projects/%s/locations/%s/publishers/anthropic/models/%s:%s", prefix, project, region, model, spec)
			r.URL.RawPath = ""
			r.Body = io.NopCloser(bytes.NewReader(data))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
			r.ContentLength = int64(len(data))
		}
		if token != nil {
			t, err := token(r.Context())
			if err != nil {
				return nil, fmt.Errorf("vertex: Google credentials: %w", err)
			}
			r.Header.Set("Authorization", "Bearer "+t)
		}
		r.Header.Del("X-Api-Key")
		return next(r)
	}
}
